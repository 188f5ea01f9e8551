import { h, local, replace, type Child, type Page } from './dom.js';
import { form } from './forms.js';
import { learnPeople, opGet, opPost, who } from './operator-api.js';
import { billingSection } from './operator-billing.js';
import { grantsSection, logSection } from './operator-log.js';

/**
 * The operator console (`#/operator`): the review queue of `audit_review` runs, service requests,
 * consulting bookings, credit and deposits, the operator log and the grants of credit. Accounts are
 * shown by email (operator-api.ts). The API refuses every call unless the account holds the
 * operator role with TOTP active; the page shows that refusal as it comes.
 */

interface QueueRow {
  run_id: string;
  domain: string;
  finished_at: string | null;
  status: 'pending' | 'done';
  due_at: string | null;
  overdue: boolean;
  refund: string | null;
  author: string | null;
}

interface RequestRow {
  id: number;
  account_id: string;
  kind: string;
  domain: string | null;
  detail: string | null;
  count: number;
  last_at: string;
  status: string;
  note: string | null;
}

interface BookingRow {
  id: string;
  account_id: string;
  starts_at: string;
  status: string;
  topic: string | null;
}

const REQUEST_STATUSES: Array<[string, string]> = [
  ['open', 'open'],
  ['reviewed', 'reviewed'],
  ['closed', 'closed'],
];

function table(caption: string, head: string[], rows: Child[][]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, `${caption}: none.`);
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
  );
}

function reviewStatus(r: QueueRow): string {
  if (r.status === 'done') return `done by ${r.author ?? 'an operator'}`;
  if (r.overdue) return `overdue since ${local(r.due_at)}${r.refund ? `, refund ${r.refund}` : ''}`;
  return `pending, due ${local(r.due_at)}`;
}

async function queueSection(): Promise<HTMLElement> {
  const box = h('div', { 'data-testid': 'review-queue' });
  const show = async (status: string) => {
    const rows = await opGet<QueueRow[]>(`/v1/operator/reviews?status=${encodeURIComponent(status)}`);
    replace(
      box,
      table(
        'Review-tier runs',
        ['Domain', 'Finished', 'Review', ''],
        rows.map((r) => [
          r.domain,
          local(r.finished_at),
          reviewStatus(r),
          h('a', { href: `#/operator-review/${encodeURIComponent(r.run_id)}` }, `Open ${r.domain}`),
        ]),
      ),
    );
  };
  await show('pending');
  const filter = form(
    [
      {
        name: 'status',
        label: 'Show reviews',
        options: [
          ['pending', 'pending'],
          ['done', 'done'],
          ['all', 'all'],
        ],
      },
    ],
    'Show',
    (v) => show(v.status ?? 'pending'),
  );
  return h('section', {}, h('h2', {}, 'Review queue'), filter, box);
}

function markForm(r: RequestRow, refresh: () => Promise<void>): HTMLElement {
  return form(
    [
      { name: 'status', label: `Mark request ${r.id}`, options: REQUEST_STATUSES, value: r.status },
      { name: 'note', label: `Note on request ${r.id}`, value: r.note ?? '' },
    ],
    'Save',
    async (v) => {
      await opPost(`/v1/operator/requests/${r.id}`, {
        status: v.status,
        ...(v.note ? { note: v.note } : {}),
      });
      await refresh();
    },
  );
}

async function requestsSection(): Promise<HTMLElement> {
  const box = h('div', { 'data-testid': 'requests' });
  let query = '';
  const refresh = async () => {
    const rows = await opGet<RequestRow[]>(`/v1/operator/requests${query}`);
    await learnPeople(rows.map((r) => r.account_id));
    replace(
      box,
      table(
        'Service requests',
        ['Request', 'By', 'Asked', 'Status', 'Mark'],
        rows.map((r) => [
          `#${r.id} ${r.kind}${r.domain ? ` of ${r.domain}` : ''} ×${r.count}${r.detail ? ` — ${r.detail}` : ''}`,
          who(r.account_id),
          local(r.last_at),
          `${r.status}${r.note ? ` (${r.note})` : ''}`,
          markForm(r, refresh),
        ]),
      ),
    );
  };
  await refresh();
  const filter = form(
    [
      { name: 'status', label: 'Status', options: [['', 'any'], ...REQUEST_STATUSES] },
      {
        name: 'kind',
        label: 'Kind',
        options: [
          ['', 'any'],
          ['pentest', 'penetration test'],
          ['pentest_discussion', 'discuss a penetration test'],
          ['consultancy', 'consultancy'],
        ],
      },
      { name: 'domain', label: 'Domain' },
    ],
    'Filter',
    async (v) => {
      const params = new URLSearchParams();
      for (const name of ['status', 'kind', 'domain']) if (v[name]) params.set(name, v[name]!);
      query = params.toString() ? `?${params.toString()}` : '';
      await refresh();
    },
  );
  return h('section', {}, h('h2', {}, 'Service requests'), filter, box);
}

async function bookingsSection(): Promise<HTMLElement> {
  const rows = await opGet<BookingRow[]>('/v1/operator/bookings');
  await learnPeople(rows.map((b) => b.account_id));
  return h(
    'section',
    { 'data-testid': 'bookings' },
    h('h2', {}, 'Consulting bookings'),
    table(
      'Bookings from a week ago on',
      ['Starts', 'Status', 'Topic', 'Account'],
      rows.map((b) => [local(b.starts_at), b.status, b.topic ?? '—', who(b.account_id)]),
    ),
  );
}

export const operatorPage: Page = async (main) => {
  const sections = await Promise.all([
    queueSection(),
    requestsSection(),
    bookingsSection(),
    billingSection(),
  ]);
  replace(
    main,
    h('h1', {}, 'Operator console'),
    h('p', { class: 'muted' }, 'Every change here is logged with your account and the time.'),
    ...sections,
    logSection(),
    grantsSection(),
  );
};

interface Review {
  status: 'pending' | 'done';
  note: string | null;
  reviewed_at: string | null;
  author?: string | null;
  due_at?: string | null;
}

interface ReviewItem {
  run_id: string;
  account_id: string;
  refund: string | null;
  report: {
    domain: string;
    grade: string | null;
    score: number | null;
    summary: string;
    findings: Array<{ title: string; severity: string; passed: boolean; evidence: string }>;
    review: Review | null;
  };
}

function reviewText(review: Review | null): string {
  if (!review) return 'No review belongs to this run.';
  if (review.status === 'done')
    return `Reviewed by ${review.author ?? 'an operator'} on ${local(review.reviewed_at)}: ${review.note ?? ''}`;
  return `Pending, due ${local(review.due_at)}.`;
}

/** One run of the queue: its report, and the form that records the review once. */
export const operatorReviewPage: Page = async (main, _params, id) => {
  const path = `/v1/operator/reviews/${encodeURIComponent(id)}`;
  const item = await opGet<ReviewItem>(path);
  await learnPeople([item.account_id]);
  const { report } = item;
  const state = h('p', { role: 'status', 'data-testid': 'review-state' }, reviewText(report.review));
  const problems = report.findings.filter((f) => !f.passed);
  replace(
    main,
    h('h1', {}, `Review of ${report.domain}`),
    h('p', {}, h('a', { href: '#/operator' }, 'Back to the console')),
    h('p', {}, `Run of ${who(item.account_id)}.`),
    h('p', {}, `Grade ${report.grade ?? '—'}, score ${report.score ?? '—'}. ${report.summary}`),
    state,
    h('h2', {}, `Problems found (${problems.length})`),
    h('ul', {}, ...problems.map((f) => h('li', {}, `${f.severity}: ${f.title} — ${f.evidence}`))),
    report.review?.status === 'pending'
      ? form(
          [{ name: 'note', label: 'Review (the owner reads it)', type: 'textarea', required: true }],
          'Record review and mark done',
          async (v) => {
            await opPost(path, { note: v.note });
            const after = await opGet<ReviewItem>(path);
            replace(state, reviewText(after.report.review));
          },
        )
      : null,
  );
};
