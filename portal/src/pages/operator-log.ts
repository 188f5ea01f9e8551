import { h, local, replace, type Child } from './dom.js';
import { form, problemBox, type Field } from './forms.js';
import { dollars } from './money.js';
import { learnPeople, opList, personOf, refId, who } from './operator-api.js';

/**
 * The console's record of what operators did: the operator logs of the services merged newest
 * first, and billing's grants and revocations of credit, each with filters and "Show older".
 */

interface LogRow {
  at: string;
  actor: string;
  action: string;
  target: string;
  reason: string;
}

interface GrantRow {
  account_id: string;
  kind: 'grant' | 'revoke';
  amount_atomic: number;
  reason: string;
  actor: string;
  at: string;
}

/** Each service's log, and what the console calls it. */
const LOGS: Array<[string, string]> = [
  ['/v1/operator/billing/log', 'credit'],
  ['/v1/operator/requests/log', 'requests'],
  ['/v1/operator/reviews/log', 'reviews'],
  ['/v1/operator/accounts/log', 'accounts'],
];
const PAGE = 25;

const ACTIONS: Record<string, string> = {
  'credit.grant': 'granted credit',
  'credit.revoke': 'took credit back',
  'credit.refund': 'refunded an order',
  'deposit.assign': 'assigned a deposit',
  'deposit.return': 'recorded a deposit as returned',
  'operator.grant': 'gave the operator role',
  'operator.revoke': 'took the operator role away',
  'review.record': 'recorded a review',
};
const actionWords = (a: string) =>
  ACTIONS[a] ?? (a.startsWith('request.mark.') ? `marked a request ${a.slice(13)}` : a);

/** Who did it: an operator by email, a command line by the name it was given. */
function actorWords(actor: string): string {
  const operator = refId(actor, 'operator');
  if (operator) return who(operator);
  const command = refId(actor, 'command');
  return command ? `command line (${command})` : actor;
}

/** What it was done to: an account by email, a reviewed run as a link to its review. */
function targetWords(target: string): Child {
  const account = refId(target, 'account');
  if (account) return who(account);
  const run = refId(target, 'run');
  if (run) return h('a', { href: `#/operator-review/${encodeURIComponent(run)}` }, 'a review-tier run');
  const [kind = '', ...rest] = target.split(':');
  return rest.length ? `${kind} ${rest.join(':')}` : target;
}

/** Billing logs an amount of credit in atomic units before the reason: the console says dollars. */
function reasonWords(row: LogRow): string {
  const amount = /^(\d+): (.*)$/s.exec(row.reason);
  return amount && row.action.startsWith('credit.')
    ? `${dollars(Number(amount[1]))}: ${amount[2]}`
    : row.reason;
}

function table(caption: string, head: string[], rows: Child[][]): HTMLElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
  );
}

const FILTERS: Field[] = [
  { name: 'operator', label: 'Operator (email)', autocomplete: 'off' },
  { name: 'account', label: 'Account (email)', autocomplete: 'off' },
  { name: 'since', label: 'From (day)', type: 'date' },
  { name: 'until', label: 'To (day, included)', type: 'date' },
];

/** The query of the filters: emails become account ids, days become instants of the person's zone. */
async function filterQuery(v: Record<string, string>, accountParam: string): Promise<URLSearchParams> {
  const params = new URLSearchParams();
  for (const [field, param] of [
    ['operator', 'operator'],
    ['account', accountParam],
  ] as const) {
    if (!v[field]) continue;
    const person = await personOf(v[field]);
    if (!person) throw new Error(`No account has the email ${v[field]}.`);
    params.set(param, person.id);
  }
  if (v.action) params.set('action', v.action);
  if (v.since) params.set('since', new Date(`${v.since}T00:00`).toISOString());
  if (v.until)
    params.set('until', new Date(new Date(`${v.until}T00:00`).getTime() + 86_400_000).toISOString());
  return params;
}

interface Source {
  path: string;
  cursor: string | null;
  done: boolean;
  rows: LogRow[];
}

/** The next rows of the merged log: those no source can still precede, newest first. */
async function mergedNext(sources: Source[], query: URLSearchParams): Promise<LogRow[]> {
  for (const s of sources.filter((s) => !s.done && s.rows.length < PAGE)) {
    const q = new URLSearchParams(query);
    q.set('limit', String(PAGE));
    if (s.cursor) q.set('cursor', s.cursor);
    const page = await opList<LogRow>(`${s.path}?${q.toString()}`);
    s.rows.push(...page.data);
    s.cursor = page.meta.next_cursor ?? null;
    s.done = !s.cursor;
  }
  // A source with more to come may still hold rows up to its last one: show only what is newer.
  const open = sources.filter((s) => !s.done).map((s) => s.rows.at(-1)?.at ?? '');
  const floor = open.length ? open.sort().at(-1)! : '';
  const shown = sources.flatMap((s) => {
    const taken = s.rows.filter((r) => r.at >= floor);
    s.rows = s.rows.filter((r) => r.at < floor);
    return taken;
  });
  return shown.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

export function logSection(): HTMLElement {
  const box = h('div', { 'data-testid': 'operator-log' });
  const more = h('div', {});
  let sources: Source[] = [];
  let query = new URLSearchParams();
  let shown: LogRow[] = [];
  const render = () => {
    replace(
      box,
      shown.length === 0
        ? h('p', { class: 'muted' }, 'Nothing logged matches.')
        : table(
            'What operators did, newest first',
            ['When', 'Operator', 'Action', 'On', 'Reason'],
            shown.map((r) => [
              local(r.at),
              actorWords(r.actor),
              actionWords(r.action),
              targetWords(r.target),
              reasonWords(r),
            ]),
          ),
    );
    replace(
      more,
      sources.some((s) => !s.done || s.rows.length)
        ? h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => void next() },
            'Show older actions',
          )
        : '',
    );
  };
  const next = async () => {
    const rows = await mergedNext(sources, query);
    await learnPeople(rows.flatMap((r) => [refId(r.actor, 'operator'), refId(r.target, 'account')]));
    shown = [...shown, ...rows];
    render();
  };
  const load = async (v: Record<string, string>) => {
    query = await filterQuery(v, 'target');
    sources = LOGS.map(([path]) => ({ path, cursor: null, done: false, rows: [] }));
    shown = [];
    await next();
  };
  const filters = form(
    [
      {
        name: 'action',
        label: 'Action',
        options: [
          ['', 'any'],
          ...['credit', 'deposit', 'request', 'review', 'operator'].map((a): [string, string] => [a, a]),
        ],
      },
      ...FILTERS,
    ],
    'Show log',
    load,
  );
  void load({}).catch((err: unknown) => replace(box, problemBox(err)));
  return h('section', {}, h('h2', {}, 'Operator log'), filters, box, more);
}

export function grantsSection(): HTMLElement {
  const box = h('div', { 'data-testid': 'grants' });
  const more = h('div', {});
  let query = new URLSearchParams();
  let rows: GrantRow[] = [];
  let cursor: string | null = null;
  const render = () => {
    replace(
      box,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No grant or revocation matches.')
        : table(
            'Credit granted and taken back by operators, newest first',
            ['When', 'Account', 'Change', 'Reason', 'Operator'],
            rows.map((g) => [
              local(g.at),
              who(g.account_id),
              `${g.kind === 'grant' ? '+' : '-'}${dollars(g.amount_atomic)}`,
              g.reason,
              actorWords(g.actor),
            ]),
          ),
    );
    replace(
      more,
      cursor
        ? h('button', { type: 'button', class: 'secondary', onclick: () => void next() }, 'Show older grants')
        : '',
    );
  };
  const next = async () => {
    const q = new URLSearchParams(query);
    q.set('limit', String(PAGE));
    if (cursor) q.set('cursor', cursor);
    const page = await opList<GrantRow>(`/v1/operator/billing/grants?${q.toString()}`);
    await learnPeople(page.data.flatMap((g) => [g.account_id, refId(g.actor, 'operator')]));
    rows = [...rows, ...page.data];
    cursor = page.meta.next_cursor ?? null;
    render();
  };
  const load = async (v: Record<string, string>) => {
    query = await filterQuery(v, 'account');
    [rows, cursor] = [[], null];
    await next();
  };
  void load({}).catch((err: unknown) => replace(box, problemBox(err)));
  return h('section', {}, h('h2', {}, 'Grants of credit'), form(FILTERS, 'Show grants', load), box, more);
}
