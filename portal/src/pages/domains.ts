import { ApiError, call, get, post, purchase } from './api.js';
import { copyButton, h, local, replace, usd, type Page } from './dom.js';
import { action, form, problemBox } from './forms.js';
import { credentialsSection } from './credentials.js';
import { domainStateWords, runStateWords, tierWords } from './words.js';

interface Domain {
  domain: string;
  status: string;
  verified: boolean;
  verification: { name: string; value: string; type?: string };
}

interface Run {
  id: string;
  domain: string;
  tier: string;
  status: string;
  payment: string;
  amount_atomic: number | null;
  pay: {
    deposit_address: string;
    memo: string;
    asset: string;
    network: string;
    amount_atomic?: number;
  } | null;
  created_at: string;
  grade: string | null;
  score: number | null;
}

interface Tier {
  tier: string;
  price_atomic: number | null;
  charge_atomic: number | null;
  covered_by_subscription: boolean;
}

const q = (domain: string) => `domain=${encodeURIComponent(domain)}`;

/**
 * `pnpm start` serves a demo site (the answer's `meta.demo_domain`; never set in a deployment), so
 * a person can try the whole audit offline: add it, publish its record, run, read, share.
 */
function demoOffer(demo: string | null | undefined, domains: Domain[]): HTMLElement {
  if (!demo || domains.some((d) => d.domain === demo)) return h('span');
  const box = h(
    'section',
    { class: 'demo', 'aria-label': 'Try the audit offline', 'data-testid': 'demo-offer' },
    h('h2', {}, 'Try the audit offline'),
    h(
      'p',
      {},
      `This local system serves a demo site, ${demo}, with a few mistakes on purpose. It is not a real site and exists only on this machine: add it to see verification, a run, its report, PDF and share link without the internet.`,
    ),
  );
  const add = () =>
    post<Domain>('/v1/analysis/domains', { domain: demo }).then(
      (added) => void (location.hash = `#/domain/${encodeURIComponent(added.domain)}`),
      (e: unknown) => void box.append(problemBox(e)),
    );
  box.append(h('button', { type: 'button', onclick: () => void add() }, 'Add the demo site'));
  return box;
}

export const domainsPage: Page = async (main) => {
  const listed = await call<{ data: Domain[]; meta?: { demo_domain?: string | null } }>(
    'GET',
    '/v1/analysis/domains',
  );
  const domains = listed.data;
  replace(
    main,
    h('h1', {}, 'Domains'),
    demoOffer(listed.meta?.demo_domain, domains),
    form(
      [
        {
          name: 'domain',
          label: 'Add a domain',
          required: true,
          hint: 'A bare host name, such as shop.example.com.',
        },
      ],
      'Add domain',
      async (v) => {
        const added = await post<Domain>('/v1/analysis/domains', { domain: v.domain });
        location.hash = `#/domain/${encodeURIComponent(added.domain)}`;
      },
    ),
    domains.length === 0
      ? h('p', { class: 'muted' }, 'No domain yet.')
      : h(
          'ul',
          {},
          ...domains.map((d) =>
            h(
              'li',
              {},
              h('a', { href: `#/domain/${encodeURIComponent(d.domain)}` }, d.domain),
              ` — ${d.verified ? 'verified' : domainStateWords(d.status)}`,
            ),
          ),
        ),
  );
};

async function verification(d: Domain, box: HTMLElement, refresh: () => Promise<void>) {
  const provider = await get<{ zone: string; provider: { id: string; name: string } | null; help: string }>(
    `/v1/analysis/dns-provider?${q(d.domain)}`,
  ).catch(() => null);
  const result = h('div', { role: 'status' });
  replace(
    box,
    h('h2', {}, 'Ownership'),
    d.verified
      ? h('p', { class: 'ok', 'data-testid': 'verified' }, 'Verified.')
      : h('p', {}, 'Publish this TXT record at your DNS provider, then verify.'),
    h(
      'dl',
      {},
      h('dt', {}, 'Name'),
      h(
        'dd',
        {},
        h('code', {}, d.verification.name),
        ' ',
        copyButton(() => d.verification.name, 'Copy name'),
      ),
      h('dt', {}, 'Type'),
      h('dd', {}, 'TXT'),
      h('dt', {}, 'Value'),
      h(
        'dd',
        {},
        h('code', { 'data-testid': 'txt-value' }, d.verification.value),
        ' ',
        copyButton(() => d.verification.value, 'Copy value'),
      ),
    ),
    provider
      ? h(
          'div',
          { class: 'card' },
          h('h3', {}, provider.provider ? `Your DNS provider: ${provider.provider.name}` : 'DNS setup help'),
          h('p', {}, provider.help),
        )
      : null,
    action(
      'Verify now',
      async () => {
        const answer = await get<{ verified: boolean; found: boolean }>(`/v1/analysis/verify?${q(d.domain)}`);
        if (answer.verified) await refresh();
        else
          replace(
            result,
            h(
              'p',
              { class: 'error' },
              answer.found
                ? 'The record was found but does not match yet.'
                : 'The TXT record was not found yet. DNS changes can take a few minutes.',
            ),
          );
      },
      '',
    ),
    result,
  );
}

async function authorization(d: Domain, box: HTMLElement) {
  const current = await get<{ active?: boolean; expires_at?: string; scope?: unknown } | null>(
    `/v1/audit/authorization?${q(d.domain)}`,
  ).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  });
  const again = () => authorization(d, box);
  replace(
    box,
    h('h2', {}, 'Active testing'),
    h(
      'p',
      { class: 'muted' },
      'The secure and review tiers send active probes only under your authorization.',
    ),
    current && current.active !== false
      ? h(
          'div',
          {},
          h('p', { 'data-testid': 'authorization' }, `Authorized until ${local(current.expires_at)}.`),
          action('Revoke the authorization', async () => {
            await post('/v1/audit/authorization/revoke', { domain: d.domain });
            await again();
          }),
        )
      : form(
          [
            { name: 'name', label: 'Your full name', required: true, autocomplete: 'name' },
            { name: 'days', label: 'Window (days)', type: 'number', value: '30', min: '1' },
            {
              name: 'paths',
              label: 'Scope: paths (one per line, empty for the whole domain)',
              type: 'textarea',
            },
            {
              name: 'owner',
              label: `I own ${d.domain} or am authorized to have it tested.`,
              type: 'checkbox',
            },
          ],
          'Authorize active tests',
          async (v) => {
            const paths = v
              .paths!.split('\n')
              .map((p) => p.trim())
              .filter(Boolean);
            await post('/v1/audit/authorize', {
              domain: d.domain,
              attestation: { owner: v.owner === 'true', name: v.name },
              days: Number(v.days) || undefined,
              ...(paths.length ? { paths } : {}),
            });
            await again();
          },
        ),
  );
}

async function runs(d: Domain, box: HTMLElement) {
  const [list, entitlement] = await Promise.all([
    get<Run[]>(`/v1/analysis/reports?${q(d.domain)}`),
    get<{ tiers: Tier[] }>('/v1/analysis/entitlement'),
  ]);
  const label = (t: Tier) =>
    `${tierWords(t.tier)}: ${t.covered_by_subscription ? 'covered by your subscription' : usd(t.charge_atomic ?? t.price_atomic)}`;
  const commission = purchase<Run>('/v1/analysis/run');
  replace(
    box,
    h('h2', {}, 'Start a run'),
    d.verified
      ? form(
          [
            { name: 'tier', label: 'Tier', options: entitlement.tiers.map((t) => [t.tier, label(t)]) },
            {
              name: 'payment',
              label: 'Pay',
              options: [
                ['credit', 'from credit'],
                ['deposit', 'on chain (quote)'],
              ],
            },
          ],
          'Start run',
          async (v) => {
            const run = await commission({ domain: d.domain, tier: v.tier, payment: v.payment });
            location.hash = `#/run/${run.id}`;
          },
        )
      : h('p', { class: 'muted' }, 'Verify the domain first.'),
    h('h2', {}, 'Runs'),
    list.length === 0
      ? h('p', { class: 'muted' }, 'No run yet.')
      : h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Started'),
              h('th', {}, 'Tier'),
              h('th', {}, 'Status'),
              h('th', {}, 'Grade'),
              h('th', {}, ''),
            ),
          ),
          h(
            'tbody',
            {},
            ...list.map((r) =>
              h(
                'tr',
                {},
                h('td', {}, local(r.created_at)),
                h('td', {}, tierWords(r.tier)),
                h('td', {}, runStateWords(r.status)),
                h('td', {}, r.grade ?? '—'),
                h(
                  'td',
                  {},
                  h(
                    'a',
                    { href: r.status === 'succeeded' ? `#/report/${r.id}` : `#/run/${r.id}` },
                    r.status === 'succeeded' ? 'Report' : 'Trace',
                  ),
                ),
              ),
            ),
          ),
        ),
  );
}

export const domainPage: Page = async (main, _params, name) => {
  const domains = await get<Domain[]>('/v1/analysis/domains');
  const d = domains.find((x) => x.domain === name);
  if (!d) {
    replace(
      main,
      h('h1', {}, name),
      h('p', { class: 'error' }, 'This domain is not one of yours.'),
      h('a', { href: '#/domains' }, 'Back to domains'),
    );
    return;
  }
  const boxes = [
    h('section', { 'aria-label': 'Ownership' }),
    h('section', { 'aria-label': 'Runs' }),
    h('section', { 'aria-label': 'Active testing' }),
    h('section', { 'aria-label': 'Credentials' }),
  ];
  replace(main, h('h1', {}, d.domain), ...boxes);
  const refresh = () => domainPage(main, _params, name) as Promise<void>;
  const guard = (p: Promise<void>, box: HTMLElement) => p.catch((e: unknown) => box.append(problemBox(e)));
  await Promise.all([
    guard(verification(d, boxes[0]!, refresh), boxes[0]!),
    guard(runs(d, boxes[1]!), boxes[1]!),
    guard(authorization(d, boxes[2]!), boxes[2]!),
    guard(credentialsSection(d.domain, boxes[3]!), boxes[3]!),
  ]);
};

export type { Run };
