import { get } from './api.js';
import { h, replace, type Page } from './dom.js';
import { dollars, moneyWords } from './money.js';
import { planWords, tierWords } from './words.js';

/** GET /v1/billing/prices, the parts this page shows: the same list every purchase charges from. */
interface Prices {
  plans: Array<{
    plan: string;
    rate_limit_per_minute: number;
    live_metrics: number;
    monthly_price_atomic: number | null;
  }>;
  audit_subscriptions: Array<{ tier: string; price_atomic: number | null }>;
  analysis_runs: Array<{ tier: string; price_atomic: number | null }>;
  consulting: Array<{ kind: string; price_atomic: number | null }>;
  pay_per_call: {
    network: string;
    asset: string;
    prices: Array<{ kind: string; amount_atomic: number; applies_to: string }>;
  };
}

interface Catalog {
  categories: Array<{ category: string; products: Array<{ metrics: Array<{ status?: string }> }> }>;
}

const price = (atomic: number | null) => (atomic === null ? 'not sold here' : dollars(atomic));
function plansTable(prices: Prices): HTMLElement {
  return h(
    'table',
    { 'data-testid': 'plans' },
    h('caption', {}, 'Data API plans'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Plan'),
        h('th', { scope: 'col' }, 'Requests a minute'),
        h('th', { scope: 'col' }, 'Live metrics'),
        h('th', { scope: 'col' }, 'A month'),
      ),
    ),
    h(
      'tbody',
      {},
      ...prices.plans.map((p) =>
        h(
          'tr',
          { 'data-plan': p.plan },
          h('th', { scope: 'row' }, planWords(p.plan)),
          h('td', {}, p.rate_limit_per_minute),
          h('td', {}, p.live_metrics),
          h(
            'td',
            { 'data-testid': `plan-price-${p.plan}` },
            p.plan === 'free' ? 'free, no card' : price(p.monthly_price_atomic),
          ),
        ),
      ),
    ),
  );
}

function auditTable(prices: Prices): HTMLElement {
  const run = new Map(prices.analysis_runs.map((r) => [r.tier, r.price_atomic]));
  return h(
    'table',
    { 'data-testid': 'audit-prices' },
    h('caption', {}, 'Audit tiers'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Tier'),
        h('th', { scope: 'col' }, 'One run'),
        h('th', { scope: 'col' }, 'Subscription, a month'),
      ),
    ),
    h(
      'tbody',
      {},
      ...prices.audit_subscriptions.map((s) =>
        h(
          'tr',
          { 'data-tier': s.tier },
          h('th', { scope: 'row' }, tierWords(s.tier)),
          h('td', { 'data-testid': `run-price-${s.tier}` }, price(run.get(s.tier) ?? null)),
          h('td', { 'data-testid': `subscription-price-${s.tier}` }, price(s.price_atomic)),
        ),
      ),
    ),
  );
}

/** What Meridian is, for a visitor, before any sign-in: both faces, the plans and the prices. */
export const landingPage: Page = async (main) => {
  const [prices, catalog] = await Promise.all([
    get<Prices>('/v1/billing/prices'),
    get<Catalog>('/v1/catalog'),
  ]);
  const live = catalog.categories.reduce(
    (n, c) => n + c.products.reduce((m, p) => m + p.metrics.filter((x) => x.status === 'live').length, 0),
    0,
  );
  const ppc = prices.pay_per_call;
  const money = moneyWords(ppc.asset, ppc.network);
  replace(
    main,
    h('h1', {}, 'Meridian'),
    h(
      'p',
      { class: 'lead' },
      'Meridian has two faces: an audit portal that checks the websites you own, and a data API of market and reference data.',
    ),
    h('h2', {}, 'Audits of your domains'),
    h(
      'p',
      {},
      'Prove you own a domain with a DNS record, commission an automated audit, follow it live and read the report: a grade, the findings by severity with evidence and remediation, a PDF, a link to share. Pay each run from prepaid credit (topped up in USDC) or on chain, or subscribe for a month; book a consultant.',
    ),
    auditTable(prices),
    h(
      'p',
      { 'data-testid': 'consulting-price' },
      ...prices.consulting.map((c) => `A ${c.kind} session: ${price(c.price_atomic)}. `),
    ),
    h('h2', {}, 'Data API'),
    h(
      'p',
      { 'data-testid': 'catalogue-size' },
      `${live} live metrics in ${catalog.categories.length} categories (${catalog.categories.map((c) => c.category).join(', ')}). Every answer carries its value, a confidence score and the sources behind it. Use an API key on a plan:`,
    ),
    plansTable(prices),
    h('h3', {}, 'Pay per call, no account'),
    h('p', {}, `Without a key, each call can be paid on its own over HTTP 402 (x402), in ${money.label}:`),
    h(
      'ul',
      { 'data-testid': 'per-call' },
      ...ppc.prices.map((p) =>
        h('li', { 'data-kind': p.kind }, `${dollars(p.amount_atomic)} for ${p.applies_to}`),
      ),
    ),
    h('p', { class: 'muted' }, money.note),
    h(
      'p',
      { class: 'row' },
      h('a', { href: '#/signup', class: 'button' }, 'Create an account'),
      h('a', { href: '#/signin' }, 'Sign in'),
      h('a', { href: '#/data' }, 'Explore the data'),
      h('a', { href: '/v1/billing/prices' }, 'The price list as JSON'),
    ),
  );
};
