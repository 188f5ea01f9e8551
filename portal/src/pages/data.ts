import { call } from './api.js';
import { h, replace, type Page } from './dom.js';
import { showAnswer } from './explorer-answer.js';
import { questionForm, type CatalogCategory, type Question } from './explorer-form.js';
import { nameOf } from './explorer-words.js';
import { session } from './session.js';

/** The catalogue's categories, each with its products and how many of its metrics are live. */
function categoryList(categories: CatalogCategory[]): HTMLElement {
  return h(
    'ul',
    { 'data-testid': 'categories', class: 'categories' },
    ...categories.map((c) => {
      const live = c.products.reduce((n, p) => n + p.metrics.filter((m) => m.status === 'live').length, 0);
      return h(
        'li',
        {},
        h('strong', {}, nameOf(c.category)),
        ` — ${c.products.map((p) => nameOf(p.product)).join(', ')} (${live} live)`,
      );
    }),
  );
}

/** The demo snapshot (`GET /v1/demo`, no key) as a question the answer view shows like any other. */
const DEMO: Question = {
  product: { product: 'demo', min_tier: 'free', sources: [], entities: [], metrics: [] },
  metric: {
    metric: 'demo_snapshot',
    path: '/v1/demo',
    value_shape: 'object',
    unit: '',
    cadence: 'every 60 s',
    series: false,
    status: 'live',
    min_tier: 'free',
    description: 'A snapshot of reference prices, options and sports, open to everyone.',
  },
  entity: '',
  source: '',
  series: false,
  interval: '',
};

/**
 * The data explorer: a metric picked by name from the catalogue and read with the signed-in
 * session (no key pasted: the gateway gates and limits the session by the account's plan, as a
 * key of the account), its answer as rows, chart, provenance and replay notice in words.
 */
export const dataPage: Page = async (main) => {
  const catalog = await call<{ data: { categories: CatalogCategory[]; replay?: string } }>(
    'GET',
    '/v1/catalog',
  );
  const { categories, replay } = catalog.data;
  const account = await session.load();
  const live = categories
    .flatMap((c) => c.products.flatMap((p) => p.metrics))
    .filter((m) => m.status === 'live');
  const out = h('section', { 'aria-label': 'Answer', 'aria-live': 'polite', 'data-testid': 'answer' });
  const ctx = { plan: account?.plan ?? null, signedIn: account !== null };
  const demo = h('button', { type: 'button', class: 'secondary' }, 'Show the free demo snapshot');
  demo.onclick = () => void showAnswer(out, DEMO, ctx);
  replace(
    main,
    h('h1', {}, 'Data explorer'),
    h('p', {}, `${live.length} live metrics in ${categories.length} categories.`),
    replay
      ? h(
          'div',
          { class: 'notice', role: 'note' },
          h(
            'p',
            {},
            'Not live data: this deployment replays recordings, shifted to the present. Each answer says what it replays and when it was recorded.',
          ),
          h('details', {}, h('summary', {}, 'What is replayed'), h('p', {}, replay)),
        )
      : null,
    account
      ? h(
          'p',
          { 'data-testid': 'explorer-plan' },
          `Read with your session on the ${account.plan} plan: no key needed here.`,
        )
      : h(
          'p',
          {},
          h('a', { href: '#/signin' }, 'Sign in'),
          ' to read any metric of your plan; the demo needs no account.',
        ),
    h('details', {}, h('summary', {}, 'Every category'), categoryList(categories)),
    questionForm(categories, (q) => showAnswer(out, q, ctx)),
    demo,
    out,
  );
};
