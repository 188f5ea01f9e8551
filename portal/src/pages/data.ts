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

/**
 * The numbers of a series answer (`data` an array, ascending in time): numbers, or rows with a
 * number column. Anything else (a latest read, the demo snapshot) has no chart.
 */
function seriesOf(data: unknown): { values: number[]; column: string | null } {
  if (!Array.isArray(data) || data.length < 2) return { values: [], column: null };
  if (data.every((x) => typeof x === 'number')) return { values: data as number[], column: null };
  const first = data[0] as Record<string, unknown> | null;
  if (!first || typeof first !== 'object') return { values: [], column: null };
  const numeric = Object.keys(first).filter((k) => typeof first[k] === 'number');
  const column = PREFERRED.find((k) => numeric.includes(k)) ?? numeric.find((k) => !/time|ts$|_at$/i.test(k));
  if (!column) return { values: [], column: null };
  const values = data.map((x) => Number((x as Record<string, unknown>)[column])).filter(Number.isFinite);
  return { values, column };
}

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
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute(
    'points',
    values
      .map((v, i) => `${(i / (values.length - 1)) * 390 + 5},${195 - ((v - min) / span) * 190}`)
      .join(' '),
  );
  svg.append(line);
  return svg;
}

interface Category {
  category: string;
  products: Array<{ product: string; default_entity?: string; metrics: Metric[] }>;
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
    h(
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
    ),
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
      ],
      'Show',
      async (v) => {
        key = v.key ?? '';
        const query = new URLSearchParams();
        if (v.metric !== 'demo') {
          const entity = v.entity || defaults.get(v.metric ?? '');
          if (entity) query.set('entity', entity);
          if (v.series === 'true') query.set('series', 'true');
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
          const { values, column } = seriesOf(answer.data);
          replace(
            out,
            values.length > 1
              ? h('h2', {}, `${path}${column ? ` — ${column}` : ''}, ${values.length} points`)
              : null,
            values.length > 1
              ? chart(
                  values,
                  `Chart of ${path}${column ? ` (${column})` : ''}, ${values.length} points from ${Math.min(...values)} to ${Math.max(...values)}`,
                )
              : null,
            h('pre', { tabindex: '0' }, JSON.stringify(answer.data, null, 2).slice(0, 4000)),
          );
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
