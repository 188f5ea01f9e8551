import { call } from './api.js';
import { chart } from './chart.js';
import { copyButton, h, replace } from './dom.js';
import { EACH_VENUE, type Question } from './explorer-form.js';
import { cellText, rowsOf, seriesOf, type Row } from './explorer-rows.js';
import {
  metaWords,
  nameOf,
  refusalWords,
  replayNotice,
  sourceWords,
  type Envelope,
  type RefusalContext,
} from './explorer-words.js';

/** The pages read so far of one request: a venue's, or the only one. */
interface Stream {
  venue: string | null;
  pages: Envelope[];
  paths: string[];
  next: string | null;
}

/** The venues a question reads: one request, or one per venue listing the entity. */
function venuesOf(q: Question): Array<string | null> {
  if (q.source !== EACH_VENUE) return [null];
  const listed = q.product.venue_entities;
  return listed
    ? Object.entries(listed)
        .filter(([, entities]) => entities.includes(q.entity))
        .map(([venue]) => venue)
    : q.product.sources;
}

/** The data endpoint's path and query for a question (and a venue, and a cursor). */
function pathOf(q: Question, venue: string | null, cursor?: string): string {
  const query = new URLSearchParams();
  if (q.entity) query.set('entity', q.entity);
  const source = venue ?? (q.source === EACH_VENUE ? '' : q.source);
  if (source) query.set('source', source);
  if (q.series) query.set('series', 'true');
  if (q.interval) query.set('interval', q.interval);
  if (cursor) query.set('cursor', cursor);
  const qs = query.toString();
  return `${q.metric.path}${qs ? `?${qs}` : ''}`;
}

async function readPage(stream: Stream, q: Question): Promise<void> {
  const path = pathOf(q, stream.venue, stream.next ?? undefined);
  const answer = await call<Envelope>('GET', path);
  stream.pages.push(answer);
  stream.paths.push(path);
  stream.next = answer.meta?.has_more && answer.meta.next_cursor ? answer.meta.next_cursor : null;
}

/** Every row read: older pages first (a cursor walks back in time), a venue column when compared. */
function allRows(streams: Stream[]): { rows: Row[]; columns: string[]; fields: Array<[string, unknown]> } {
  const rows: Row[] = [];
  let columns: string[] = [];
  let fields: Array<[string, unknown]> = [];
  for (const s of streams) {
    for (const page of [...s.pages].reverse()) {
      const r = rowsOf(page.data);
      columns = [...new Set([...(s.venue ? ['venue'] : []), ...columns, ...r.columns])];
      rows.push(...r.rows.map((row) => (s.venue ? { venue: s.venue, ...row } : row)));
      if (streams.length === 1) fields = r.fields;
    }
  }
  return { rows, columns, fields };
}

function rowsTable(rows: Row[], columns: string[], caption: string): HTMLElement {
  return h(
    'table',
    { 'data-testid': 'answer-rows', class: 'rows' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...columns.map((c) => h('td', {}, cellText(r[c])))))),
  );
}

/** What the answer says of itself: replay, freshness and confidence, sources and method, in words. */
function aboutAnswer(streams: Stream[]): HTMLElement[] {
  return streams.map((s) => {
    const last = s.pages[s.pages.length - 1]!;
    const meta = last.meta ?? {};
    const prov = last.provenance ?? {};
    return h(
      'section',
      { class: 'about', 'aria-label': s.venue ? `About ${s.venue}` : 'About this answer' },
      s.venue ? h('h3', {}, s.venue) : null,
      meta.replay && !meta.replay.live
        ? h('p', { class: 'notice', role: 'note', 'data-testid': 'replay-notice' }, replayNotice(meta.replay))
        : null,
      h(
        'ul',
        { 'data-testid': 'answer-meta', class: 'plain' },
        ...metaWords(meta).map((l) => h('li', {}, l)),
      ),
      prov.method
        ? h('p', { 'data-testid': 'method' }, h('strong', {}, 'How it is made: '), prov.method)
        : null,
      prov.sources?.length
        ? h(
            'details',
            {},
            h('summary', {}, `Sources (${prov.sources.length})`),
            h('ul', { 'data-testid': 'sources' }, ...prov.sources.map((x) => h('li', {}, sourceWords(x)))),
          )
        : null,
      prov.excluded?.length
        ? h(
            'p',
            {},
            'Left out: ',
            prov.excluded.map((x) => `${x.venue}${x.symbol ? ` ${x.symbol}` : ''} (${x.reason})`).join('; '),
          )
        : null,
    );
  });
}

/** The raw answers behind a toggle, whole, with a copy button; and the same request with curl. */
function rawAndCurl(streams: Stream[]): HTMLElement[] {
  const pages = streams.flatMap((s) => s.pages);
  const json = JSON.stringify(pages.length === 1 ? pages[0] : pages, null, 2);
  const origin = location.origin;
  const curl = streams
    .map((s) => `curl -H "Authorization: Bearer $MERIDIAN_API_KEY" '${origin}${s.paths[0]}'`)
    .join('\n');
  return [
    h(
      'details',
      { class: 'raw' },
      h('summary', {}, pages.length === 1 ? 'Raw JSON' : `Raw JSON (${pages.length} answers)`),
      copyButton(() => json, 'Copy JSON'),
      h('pre', { tabindex: '0', 'data-testid': 'raw-json' }, json),
    ),
    h('h3', {}, 'The same with curl'),
    h('p', { class: 'muted' }, 'Set MERIDIAN_API_KEY to one of your keys (Account page) first.'),
    h('pre', { tabindex: '0', 'data-testid': 'curl' }, curl),
    copyButton(() => curl, 'Copy curl'),
  ];
}

function render(out: HTMLElement, q: Question, streams: Stream[], more: () => Promise<void>): void {
  const { rows, columns, fields } = allRows(streams);
  const series = seriesOf(rows, columns);
  const title = `${nameOf(q.metric.metric)}${q.entity ? ` of ${q.entity}` : ''}${q.interval ? `, ${q.interval} bars` : ''}`;
  const next = streams.some((s) => s.next);
  const button = next
    ? (h('button', { type: 'button', class: 'secondary' }, 'Load more (older rows)') as HTMLButtonElement)
    : null;
  if (button)
    button.onclick = () => {
      button.disabled = true;
      void more();
    };
  replace(
    out,
    h('h2', {}, title),
    ...aboutAnswer(streams),
    series.length ? chart({ title: `Chart of ${title}`, unit: q.metric.unit, series }) : null,
    fields.length
      ? h(
          'dl',
          { class: 'facts', 'data-testid': 'answer-fields' },
          ...fields.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, cellText(v))]),
        )
      : null,
    rows.length
      ? rowsTable(rows, columns, `${rows.length} rows${q.metric.unit ? ` (unit ${q.metric.unit})` : ''}`)
      : null,
    button,
    ...rawAndCurl(streams),
  );
}

/**
 * Reads a question with the signed-in session (the gateway gates and limits it by the account's
 * plan, as a key of the account) and shows the answer; a refusal in plain language.
 */
export async function showAnswer(
  out: HTMLElement,
  q: Question,
  ctx: Omit<RefusalContext, 'metricName' | 'minTier'>,
) {
  const streams: Stream[] = venuesOf(q).map((venue) => ({ venue, pages: [], paths: [], next: null }));
  const refusal = { ...ctx, metricName: nameOf(q.metric.metric), minTier: q.metric.min_tier };
  const fail = (err: unknown) =>
    replace(
      out,
      h('p', { class: 'error', role: 'alert', 'data-testid': 'refusal' }, refusalWords(err, refusal)),
    );
  const more = async (): Promise<void> => {
    try {
      await Promise.all(streams.filter((s) => s.next).map((s) => readPage(s, q)));
      render(out, q, streams, more);
    } catch (err) {
      // The rows read so far stay; the refusal goes below them.
      out.append(
        h('p', { class: 'error', role: 'alert', 'data-testid': 'refusal' }, refusalWords(err, refusal)),
      );
    }
  };
  replace(out, h('p', { role: 'status' }, 'Reading…'));
  try {
    await Promise.all(streams.map((s) => readPage(s, q)));
    render(out, q, streams, more);
  } catch (err) {
    fail(err);
  }
}
