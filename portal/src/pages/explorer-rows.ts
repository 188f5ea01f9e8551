import type { Point, Series } from './chart.js';

/** A row of an answer: one object of a series, or of the longest list inside an object answer. */
export type Row = Record<string, unknown>;

/** The rows of an answer's `data`, the fields beside them, and the columns the rows have. */
interface Rows {
  rows: Row[];
  columns: string[];
  /** Scalar fields of an object answer (its symbol, price…), shown above its rows. */
  fields: Array<[string, unknown]>;
  /** The object field the rows came from (`options`, `venues`), null for a series. */
  listName: string | null;
}

const isRow = (x: unknown): x is Row => !!x && typeof x === 'object' && !Array.isArray(x);

function columnsOf(rows: Row[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/**
 * Any answer as rows: a series is its rows; a columnar table its rows as objects; an object its
 * longest list of objects (the options of a chain, the venues of a price) with the other scalar
 * fields beside; a scalar one field `value`.
 */
export function rowsOf(data: unknown): Rows {
  const table = data as { columns?: unknown; rows?: unknown } | null;
  if (table && Array.isArray(table.columns) && Array.isArray(table.rows)) {
    const columns = table.columns.map(String);
    const rows = (table.rows as unknown[][]).map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])));
    return { rows, columns, fields: [], listName: null };
  }
  if (Array.isArray(data)) {
    const rows = data.map((x) => (isRow(x) ? x : { value: x }));
    return { rows, columns: columnsOf(rows), fields: [], listName: null };
  }
  if (!isRow(data)) return { rows: [], columns: [], fields: [['value', data]], listName: null };
  const lists = Object.entries(data).filter(
    (e): e is [string, Row[]] => Array.isArray(e[1]) && e[1].length > 0 && e[1].every(isRow),
  );
  const longest = lists.sort((a, b) => b[1].length - a[1].length)[0];
  const fields = Object.entries(data).filter(([k]) => k !== longest?.[0]);
  if (!longest) return { rows: [], columns: [], fields, listName: null };
  return { rows: longest[1], columns: columnsOf(longest[1]), fields, listName: longest[0] };
}

/** A cell as text: numbers and strings as they are, anything nested as compact JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const TIME = ['ts', 'time', 'timestamp', 'start', 'open_time', 'date', 'as_of'];
const VALUE = ['value', 'close', 'price', 'rate', 'level', 'mark_price'];
const GROUP = ['venue', 'source', 'exchange'];

function timeOf(r: Row, key: string): number {
  const v = r[key];
  return typeof v === 'number' ? (v < 1e11 ? v * 1000 : v) : Date.parse(String(v));
}

/**
 * The series a chart draws from rows: a time column, and bars (open, high, low, close) or a value
 * column; one series per venue when the rows name several. Empty when the rows have no time or
 * no number to draw, or fewer than two points.
 */
export function seriesOf(rows: readonly Row[], columns: readonly string[]): Series[] {
  const time = TIME.find((c) => columns.includes(c));
  if (!time || rows.length < 2) return [];
  const hasBars = ['open', 'high', 'low', 'close'].every((c) => columns.includes(c));
  const numeric = columns.filter((c) => c !== time && rows.some((r) => typeof r[c] === 'number'));
  const valueKey = hasBars ? 'close' : (VALUE.find((c) => numeric.includes(c)) ?? numeric[0]);
  if (!valueKey) return [];
  const group = GROUP.find((c) => columns.includes(c) && new Set(rows.map((r) => r[c])).size > 1);
  const bySeries = new Map<string, Point[]>();
  for (const r of rows) {
    const t = timeOf(r, time);
    const value = Number(r[valueKey]);
    if (!Number.isFinite(t) || typeof r[valueKey] !== 'number') continue;
    const name = group ? String(r[group]) : valueKey;
    const point: Point = { t, value };
    if (hasBars)
      point.bar = { open: Number(r.open), high: Number(r.high), low: Number(r.low), close: Number(r.close) };
    bySeries.set(name, [...(bySeries.get(name) ?? []), point]);
  }
  const series = [...bySeries].map(([name, points]) => ({ name, points: points.sort((a, b) => a.t - b.t) }));
  return series.some((s) => s.points.length > 1) ? series : [];
}
