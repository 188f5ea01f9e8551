import { ApiError, call } from './api.js';
import { h, replace } from './dom.js';
import { form, problemBox } from './forms.js';
import type { Page } from './main.js';

/** Every object with a `path` in the catalogue: its metrics (live or planned). */
interface Metric {
  path: string;
  status?: string;
  min_tier?: string;
  series?: boolean;
}

function metricsOf(node: unknown, out: Metric[] = []): Metric[] {
  if (Array.isArray(node)) node.forEach((n) => metricsOf(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.path === 'string' && o.path.startsWith('/v1/')) out.push(o as unknown as Metric);
    else Object.values(o).forEach((v) => metricsOf(v, out));
  }
  return out;
}

/** The column a chart draws from rows of a series: a value, a closing price, else the first number. */
const PREFERRED = ['value', 'close', 'price', 'rate', 'level'];

/** A columnar answer (`format=table`): its column names and one array per row. */
interface Table {
  columns: string[];
  rows: unknown[][];
}

function tableOf(data: unknown): Table | null {
  const t = data as Partial<Table> | null;
  return t && Array.isArray(t.columns) && Array.isArray(t.rows) ? (t as Table) : null;
}

/**
 * The numbers of a series answer (`data` an array, ascending in time, or a table's rows): numbers,
 * or rows with a number column. Anything else (a latest read, the demo snapshot) has no chart.
 */
function seriesOf(data: unknown): { values: number[]; column: string | null } {
  const table = tableOf(data);
  const rows = table
    ? table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])))
    : data;
  if (!Array.isArray(rows) || rows.length < 2) return { values: [], column: null };
  if (rows.every((x) => typeof x === 'number')) return { values: rows as number[], column: null };
  const first = rows[0] as Record<string, unknown> | null;
  if (!first || typeof first !== 'object') return { values: [], column: null };
  const numeric = Object.keys(first).filter((k) => typeof first[k] === 'number');
  const column = PREFERRED.find((k) => numeric.includes(k)) ?? numeric.find((k) => !/time|ts$|_at$/i.test(k));
  if (!column) return { values: [], column: null };
  const values = rows.map((x) => Number((x as Record<string, unknown>)[column])).filter(Number.isFinite);
  return { values, column };
}

/** A line chart of our own in SVG: one path, one point per row, scaled to the rows' range. */
function chart(values: number[], label: string): Element {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 400 200');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const line = document.createElementNS(ns, 'path');
  const point = (v: number, i: number) =>
    `${((i / (values.length - 1)) * 390 + 5).toFixed(1)},${(195 - ((v - min) / span) * 190).toFixed(1)}`;
  line.setAttribute('d', values.map((v, i) => `${i === 0 ? 'M' : 'L'}${point(v, i)}`).join(' '));
  svg.append(line);
  return svg;
}

/** A table answer as a table: its columns as headers, one row per row. */
function tableView(table: Table, caption: string): HTMLElement {
  const cell = (v: unknown) =>
    v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return h(
    'table',
    { 'data-testid': 'answer-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...table.columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...table.rows.map((r) => h('tr', {}, ...r.map((v) => h('td', {}, cell(v)))))),
  );
}

interface Category {
  category: string;
  products: Array<{ product: string; default_entity?: string; metrics: Metric[] }>;
}

/** The catalogue's categories, each with its products and how many of its metrics are live. */
function categoryList(categories: Category[]): HTMLElement {
  return h(
    'ul',
    { 'data-testid': 'categories', class: 'categories' },
    ...categories.map((c) => {
      const live = c.products.reduce((n, p) => n + p.metrics.filter((m) => m.status === 'live').length, 0);
      return h(
        'li',
        {},
        h('strong', {}, c.category),
        ` — ${c.products.map((p) => p.product).join(', ')} (${live} live)`,
      );
    }),
  );
}

/** An answer's data: a chart of its series when it has one, a table, or the JSON itself. */
function answerView(path: string, data: unknown): Array<Element | null> {
  const { values, column } = seriesOf(data);
  const table = tableOf(data);
  const what = `${path}${column ? ` (${column})` : ''}`;
  return [
    values.length > 1 ? h('h2', {}, `${what}, ${values.length} points`) : null,
    values.length > 1
      ? chart(
          values,
          `Chart of ${what}, ${values.length} points from ${Math.min(...values)} to ${Math.max(...values)}`,
        )
      : null,
    table
      ? tableView(table, `${path}: ${table.rows.length} rows`)
      : h('pre', { tabindex: '0' }, JSON.stringify(data, null, 2).slice(0, 4000)),
  ];
}

export const dataPage: Page = async (main) => {
  const catalog = await call<{ data: { categories: Category[] } }>('GET', '/v1/catalog');
  const categories = catalog.data.categories;
  const metrics = metricsOf(categories).filter((m) => m.status !== 'planned');
  const defaults = new Map(
    categories.flatMap((c) =>
      c.products.flatMap((p) =>
        p.metrics.map((m): [string, string | undefined] => [String(m.path), p.default_entity]),
      ),
    ),
  );
  const out = h('section', { 'aria-label': 'Answer', 'aria-live': 'polite' });
  let key = ''; // kept in this page's memory only, never stored
  replace(
    main,
    h('h1', {}, 'Data explorer'),
    h('p', {}, `${metrics.length} live metrics in ${categories.length} categories.`),
    categoryList(categories),
    form(
      [
        {
          name: 'key',
          label: 'Your API key (kept in this page only; empty: the free demo)',
          type: 'password',
          autocomplete: 'off',
        },
        {
          name: 'metric',
          label: 'Metric',
          options: [
            ['demo', 'demo snapshot (no key)'],
            ...metrics.map((m): [string, string] => [
              m.path,
              `${m.path}${m.min_tier ? ` (${m.min_tier})` : ''}${m.series ? ', series' : ''}`,
            ]),
          ],
        },
        { name: 'entity', label: 'Entity (empty: the metric’s default)', autocomplete: 'off' },
        { name: 'series', label: 'Ask for a series', type: 'checkbox' },
        { name: 'table', label: 'Answer a series as a table (format=table)', type: 'checkbox' },
      ],
      'Show',
      async (v) => {
        key = v.key ?? '';
        const query = new URLSearchParams();
        if (v.metric !== 'demo') {
          const entity = v.entity || defaults.get(v.metric ?? '');
          if (entity) query.set('entity', entity);
          if (v.series === 'true') query.set('series', 'true');
          if (v.table === 'true') query.set('format', 'table');
        }
        const qs = query.toString();
        const path = v.metric === 'demo' ? '/v1/demo' : `${v.metric}${qs ? `?${qs}` : ''}`;
        try {
          const answer = await call<{ data: unknown }>(
            'GET',
            path,
            undefined,
            key ? { authorization: `Bearer ${key}` } : {},
          );
          replace(out, ...answerView(path, answer.data));
        } catch (e) {
          if (e instanceof ApiError && e.status === 402)
            replace(
              out,
              h('p', { class: 'error', role: 'alert' }, 'This metric needs an API key (or an x402 payment).'),
            );
          else replace(out, problemBox(e));
        }
      },
    ),
    out,
  );
};
