import { call, data, get } from './api.js';
import { copyButton, h, local, replace, type Page } from './dom.js';
import { action, form, type Field } from './forms.js';
import { tierWords } from './words.js';

interface Finding {
  id: string;
  category: string;
  title: string;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  passed: boolean;
  /** Absent on reports stored before it was kept: `passed` then decides. */
  outcome?: 'passed' | 'problem' | 'not_run';
  evidence: string;
  remediation: string;
  score_modifier: number;
}

interface Report {
  run_id: string;
  domain: string;
  tier: string;
  finished_at: string | null;
  score: number | null;
  grade: string | null;
  /** Each area's own grade beside the overall one; absent on older reports. */
  areas?: { area: string; score: number | null; grade: string | null }[];
  summary: string;
  findings: Finding[];
  changes: { previous_run_id: string; new: string[]; resolved: string[] } | null;
  review: {
    status: string;
    note: string | null;
    reviewed_at: string | null;
    author?: string | null;
    due_at?: string | null;
  } | null;
}

const outcomeOf = (f: Finding) => f.outcome ?? (f.passed ? 'passed' : 'problem');

/** The human review of the review tier: pending with its due time, or recorded with its author. */
function reviewBox(review: NonNullable<Report['review']>): HTMLElement {
  if (review.status === 'done')
    return h(
      'section',
      { 'aria-label': 'Human review', 'data-testid': 'review' },
      h('h2', {}, 'Human review'),
      h('p', {}, `Reviewed by ${review.author ?? 'an operator'} on ${local(review.reviewed_at)}.`),
      h('p', {}, review.note ?? ''),
    );
  return h(
    'section',
    { 'aria-label': 'Human review', 'data-testid': 'review' },
    h('h2', {}, 'Human review'),
    h(
      'p',
      {},
      review.due_at
        ? `Pending: an operator reviews this report by ${local(review.due_at)}; if not, its part of the price is refunded.`
        : 'Pending: an operator reviews this report.',
    ),
  );
}

interface TraceEvent {
  seq: number;
  at: string;
  stage: string;
  status: string;
  message: string;
}

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** The live trace: server-sent events of the run until its `end`, then a link to the report. */
export const runPage: Page = async (main, _params, id) => {
  const first = await call<{ data: TraceEvent[]; meta: { run_status: string } }>(
    'GET',
    `/v1/analysis/report/${encodeURIComponent(id)}/trace`,
  );
  const list = h('ol', {
    class: 'trace',
    'aria-live': 'polite',
    'aria-label': 'Trace events',
    tabindex: 0,
    'data-testid': 'trace',
  });
  const status = h('p', { role: 'status', 'data-testid': 'run-status' }, `Status: ${first.meta.run_status}`);
  const progress = h('progress', { 'aria-label': 'Run progress' });
  const seen = new Set<number>();
  const add = (e: TraceEvent) => {
    if (seen.has(e.seq)) return;
    seen.add(e.seq);
    list.append(h('li', {}, `${new Date(e.at).toLocaleTimeString()} ${e.stage} ${e.status}: ${e.message}`));
  };
  first.data.forEach(add);
  replace(
    main,
    h('h1', {}, 'Run'),
    h('p', {}, h('code', {}, id)),
    status,
    progress,
    h('h2', {}, 'Trace'),
    list,
  );
  const finish = (final: string) => {
    progress.remove();
    replace(status, `Status: ${final}`);
    if (final === 'succeeded')
      status.append(' — ', h('a', { href: `#/report/${encodeURIComponent(id)}` }, 'Open the report'));
  };
  if (['succeeded', 'failed'].includes(first.meta.run_status)) return finish(first.meta.run_status);
  if (first.meta.run_status === 'awaiting_payment')
    status.append(
      ' — waiting for the on-chain payment quoted when the run was commissioned (see the domain page).',
    );
  const source = new EventSource(`/v1/analysis/report/${encodeURIComponent(id)}/trace`);
  source.addEventListener('trace', (event) =>
    add(JSON.parse((event as MessageEvent<string>).data) as TraceEvent),
  );
  source.addEventListener('end', (event) => {
    source.close();
    finish((JSON.parse((event as MessageEvent<string>).data) as { status: string }).status);
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED)
      replace(status, 'The trace stream closed; reload to follow it again.');
  });
  window.addEventListener('hashchange', () => source.close(), { once: true });
};

function findingItem(f: Finding): HTMLElement {
  return h(
    'li',
    { class: 'card' },
    h(
      'h4',
      {},
      f.title,
      ' ',
      h('span', { class: 'muted' }, `(${f.id}, ${f.score_modifier >= 0 ? '+' : ''}${f.score_modifier})`),
    ),
    h('p', {}, h('strong', {}, 'Evidence: '), h('code', {}, f.evidence || '—')),
    f.remediation ? h('p', {}, h('strong', {}, 'Remediation: '), f.remediation) : null,
  );
}

/** The colour band of a grade's badge: A and B good, C and D fair, the rest poor. */
function gradeBand(grade: string | null): string {
  const letter = grade?.[0]?.toUpperCase();
  if (letter === 'A' || letter === 'B') return 'good';
  if (letter === 'C' || letter === 'D') return 'fair';
  return letter ? 'poor' : 'none';
}

const AREA_NAMES: Record<string, string> = {
  headers: 'Headers',
  transport: 'Transport (TLS)',
  mail_dns: 'Mail and DNS',
  exposure: 'Exposure',
};

/** Each area's grade, so a floor of 0 overall does not hide which parts of the site are sound. */
function areasList(report: Report): HTMLElement {
  if (!report.areas?.length) return h('span');
  return h(
    'ul',
    { class: 'areas', 'aria-label': 'Grades by area', 'data-testid': 'areas' },
    ...report.areas.map((a) =>
      h(
        'li',
        {},
        h('strong', { class: `badge grade grade-${gradeBand(a.grade)}` }, a.grade ?? '—'),
        ` ${AREA_NAMES[a.area] ?? a.area}${a.score === null ? ': not graded' : `: ${a.score}`}`,
      ),
    ),
  );
}

/** The report body: grade, summary, findings by severity, changes; shared by the owner's page. */
export function reportBody(report: Report): HTMLElement[] {
  const problems = report.findings.filter((f) => outcomeOf(f) === 'problem');
  const passed = report.findings.filter((f) => outcomeOf(f) === 'passed');
  const notRun = report.findings.filter((f) => outcomeOf(f) === 'not_run');
  const titleOf = (id: string) => report.findings.find((f) => f.id === id)?.title ?? id;
  return [
    h(
      'p',
      {},
      h(
        'strong',
        { class: `badge grade grade-${gradeBand(report.grade)}`, 'data-testid': 'grade' },
        h('span', { class: 'visually-hidden' }, 'Grade '),
        report.grade ?? '—',
      ),
      ` score ${report.score ?? '—'} · ${tierWords(report.tier)} · ${local(report.finished_at)}`,
    ),
    areasList(report),
    h('p', { 'data-testid': 'summary' }, report.summary),
    report.review ? reviewBox(report.review) : h('span'),
    h('h2', {}, 'Changes since the last run'),
    report.changes
      ? h(
          'div',
          {},
          h(
            'p',
            {},
            `New problems: ${report.changes.new.length}, resolved: ${report.changes.resolved.length}.`,
          ),
          h(
            'ul',
            {},
            ...report.changes.new.map((id) => h('li', {}, 'New: ', titleOf(id))),
            ...report.changes.resolved.map((id) => h('li', {}, 'Resolved: ', id)),
          ),
        )
      : h('p', { class: 'muted' }, 'This is the first finished run of this domain.'),
    h('h2', {}, 'Findings'),
    ...SEVERITIES.map((sev) => {
      const of = problems.filter((f) => f.severity === sev);
      if (of.length === 0) return h('span');
      const title = `${sev[0]!.toUpperCase()}${sev.slice(1)}`;
      return h(
        'section',
        { 'aria-label': `${title} findings`, 'data-testid': `severity-${sev}` },
        h('h3', { class: `sev-${sev}` }, `${title} (${of.length})`),
        h('ul', { class: 'plain' }, ...of.map(findingItem)),
      );
    }),
    notRun.length === 0
      ? h('span')
      : h(
          'section',
          { 'aria-label': 'Checks that did not run', 'data-testid': 'not-run' },
          h('h3', {}, `Not run (${notRun.length})`),
          h('ul', { class: 'plain' }, ...notRun.map(findingItem)),
        ),
    h(
      'details',
      {},
      h('summary', {}, `Passed checks (${passed.length})`),
      h('ul', {}, ...passed.map((f) => h('li', {}, f.title))),
    ),
  ];
}

/** Who may read a shared report, and for how long. */
const SHARE_FIELDS: Field[] = [
  {
    name: 'audience',
    label: 'Who may read it',
    options: [
      ['anyone', 'anyone with the link'],
      ['signed_in', 'signed-in accounts'],
      ['emails', 'named people'],
    ],
  },
  { name: 'emails', label: 'Emails (named people; comma-separated)', type: 'text', autocomplete: 'off' },
  { name: 'days', label: 'Expires after (days; empty: never)', type: 'number', min: '1', value: '7' },
];

export const reportPage: Page = async (main, _params, id) => {
  const report = await get<Report>(`/v1/analysis/report/${encodeURIComponent(id)}`);
  const share = h('section', { 'aria-label': 'Share' });
  const shareForm = () =>
    replace(
      share,
      h('h2', {}, 'Share'),
      form(SHARE_FIELDS, 'Create share link', async (v) => {
        const days = Number(v.days);
        const emails = v
          .emails!.split(',')
          .map((e) => e.trim())
          .filter(Boolean);
        const link = await data<{ url: string; expires_at: string | null; audience: string }>(
          'POST',
          `/v1/analysis/report/${encodeURIComponent(id)}/share`,
          {
            audience: v.audience,
            ...(v.audience === 'emails' ? { emails } : {}),
            ...(days > 0 ? { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
          },
        );
        // The link names the configured public address; on this page it opens on this origin.
        const url = `${location.origin}${new URL(link.url).pathname}`;
        replace(
          share,
          h('h2', {}, 'Share'),
          h(
            'p',
            {},
            `Link for ${link.audience}, expires ${link.expires_at ? local(link.expires_at) : 'never'}:`,
          ),
          h('p', {}, h('a', { href: url, 'data-testid': 'share-url' }, url)),
          copyButton(() => url, 'Copy link'),
          action('Revoke the link', async () => {
            await call('DELETE', `/v1/analysis/report/${encodeURIComponent(id)}/share`);
            shareForm();
            share.append(h('p', { role: 'status', class: 'ok' }, 'The link was revoked.'));
          }),
        );
      }),
      action('Revoke the live link', async () => {
        await call('DELETE', `/v1/analysis/report/${encodeURIComponent(id)}/share`);
        share.append(h('p', { role: 'status', class: 'ok' }, 'The link was revoked.'));
      }),
    );
  shareForm();
  replace(
    main,
    h('h1', {}, `Report: ${report.domain}`),
    h(
      'p',
      {},
      h(
        'a',
        { href: `/v1/analysis/report/${encodeURIComponent(id)}/pdf`, download: `audit-${report.domain}.pdf` },
        'Download PDF',
      ),
      ' · ',
      h('a', { href: `#/domain/${encodeURIComponent(report.domain)}` }, 'Domain'),
    ),
    ...reportBody(report),
    share,
  );
};
