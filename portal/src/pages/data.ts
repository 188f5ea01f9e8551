import { ApiError, call } from './api.js';
import { h, replace } from './dom.js';
import { form, problemBox } from './forms.js';
import type { Page } from './main.js';

/** Every object with a `path` in the catalogue: its metrics (live or planned). */
function metricsOf(node: unknown, out: Array<Record<string, any>> = []): Array<Record<string, any>> {
  if (Array.isArray(node)) node.forEach((n) => metricsOf(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, any>;
    if (typeof o.path === 'string' && o.path.startsWith('/v1/')) out.push(o);
    else Object.values(o).forEach((v) => metricsOf(v, out));
  }
  return out;
}

/** The first series of numbers in an answer: an array of numbers or of objects with a number. */
function seriesOf(node: unknown): number[] {
  if (Array.isArray(node) && node.length > 1) {
    if (node.every((x) => typeof x === 'number')) return node as number[];
    const key = node[0] && typeof node[0] === 'object' ? Object.keys(node[0]).find((k) => typeof node[0][k] === 'number' && !/time|ts|at$/i.test(k)) : undefined;
    if (key) return node.map((x) => Number((x as Record<string, unknown>)[key])).filter(Number.isFinite);
  }
  if (node && typeof node === 'object')
    for (const v of Object.values(node)) {
      const s = seriesOf(v);
      if (s.length > 1) return s;
    }
  return [];
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
  line.setAttribute('points', values.map((v, i) => `${(i / (values.length - 1)) * 390 + 5},${195 - ((v - min) / span) * 190}`).join(' '));
  svg.append(line);
  return svg;
}

export const dataPage: Page = async (main) => {
  const catalog = await call<{ data: unknown }>('GET', '/v1/catalog');
  const metrics = metricsOf(catalog.data).filter((m) => m.status !== 'planned');
  const categories = [...new Set(metrics.map((m) => String(m.category ?? m.path.split('/')[3])))];
  const out = h('section', { 'aria-label': 'Answer', 'aria-live': 'polite' });
  let key = ''; // kept in this page's memory only, never stored
  replace(
    main,
    h('h1', {}, 'Data explorer'),
    h('p', {}, `${metrics.length} live metrics in ${categories.length} categories: ${categories.join(', ')}.`),
    form(
      [
        { name: 'key', label: 'Your API key (kept in this page only; empty: the free demo)', type: 'password', autocomplete: 'off' },
        { name: 'metric', label: 'Metric', options: [['demo', 'demo snapshot (no key)'], ...metrics.map((m): [string, string] => [m.path, `${m.path}${m.min_tier ? ` (${m.min_tier})` : ''}`])] },
        { name: 'series', label: 'Ask for a series', type: 'checkbox' },
      ],
      'Show',
      async (v) => {
        key = v.key ?? '';
        const path = v.metric === 'demo' ? '/v1/demo' : `${v.metric}${v.series === 'true' ? '?series=true' : ''}`;
        try {
          const answer = await call<{ data: unknown }>('GET', path, undefined, key ? { authorization: `Bearer ${key}` } : {});
          const values = seriesOf(answer.data);
          replace(out, values.length > 1 ? chart(values, `Chart of ${path}, ${values.length} points`) : null, h('pre', {}, JSON.stringify(answer.data, null, 2).slice(0, 4000)));
        } catch (e) {
          if (e instanceof ApiError && e.status === 402) replace(out, h('p', { class: 'error', role: 'alert' }, 'This metric needs an API key (or an x402 payment).'));
          else replace(out, problemBox(e));
        }
      },
    ),
    out,
  );
};
