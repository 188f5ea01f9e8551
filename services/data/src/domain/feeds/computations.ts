import { round } from '../derivatives/options.js';

export interface Point {
  ts: Date;
  value: number;
}

/** Percent change from `previous` to `latest`. */
export function percentChange(latest: number, previous: number): number {
  return round(((latest - previous) / previous) * 100, 6);
}

/**
 * Year-over-year growth of a monthly series: the newest point against the point of the same
 * month one year earlier (not "the 12th point back": a missing month must not shift the base).
 */
export function yoyGrowth(points: Point[]): { latest: Point; base: Point; percent: number } | undefined {
  const sorted = [...points].sort((a, b) => b.ts.getTime() - a.ts.getTime());
  const latest = sorted[0];
  if (!latest) return undefined;
  const y = latest.ts.getUTCFullYear() - 1;
  const m = latest.ts.getUTCMonth();
  const base = sorted.find((p) => p.ts.getUTCFullYear() === y && p.ts.getUTCMonth() === m);
  if (!base) return undefined;
  return { latest, base, percent: percentChange(latest.value, base.value) };
}

/**
 * Change over about 24 h: the newest point against the newest point at least 20 h older
 * (a daily fix is 24 h apart on weekdays, 72 h over a weekend; the older point is named).
 */
export function change24h(points: Point[]): { latest: Point; base: Point; percent: number } | undefined {
  const sorted = [...points].sort((a, b) => b.ts.getTime() - a.ts.getTime());
  const latest = sorted[0];
  if (!latest) return undefined;
  const base = sorted.find((p) => latest.ts.getTime() - p.ts.getTime() >= 20 * 3_600_000);
  if (!base) return undefined;
  return { latest, base, percent: percentChange(latest.value, base.value) };
}

/** The points of stored observations that have a value, in their order. */
export function pointsOf(list: { ts: Date; value: number | null }[]): Point[] {
  return list.filter((o) => o.value !== null).map((o) => ({ ts: o.ts, value: o.value! }));
}

/** A row of a computed metric: its value (in the metric's unit) at `ts`, with what it was computed from. */
export type ComputedRow = { ts: string; value: number } & Record<string, unknown>;

/**
 * The rows of a computed metric over `points` (newest first): the row of each of the newest `count`
 * points, each computed from that point and the `take - 1` points before it; a point whose base is
 * not among them has no row. Newest first.
 */
export function computedSeries(
  points: Point[],
  count: number,
  take: number,
  row: (recent: Point[]) => ComputedRow | undefined,
): ComputedRow[] {
  return points.slice(0, count).flatMap((_, i) => row(points.slice(i, i + take)) ?? []);
}

/** change_24h at the newest of `points`: percent change from the previous point at least 20 h older. */
export function change24hRow(points: Point[]): ComputedRow | undefined {
  const c = change24h(points);
  return (
    c && {
      ts: c.latest.ts.toISOString(),
      value: c.percent,
      rate: c.latest.value,
      previous_rate: c.base.value,
      from: c.base.ts.toISOString(),
    }
  );
}

/** Year-over-year growth at the newest month of `points`; `level` and `base_level` are the series' values. */
export function yoyRow(points: Point[]): ComputedRow | undefined {
  const g = yoyGrowth(points);
  return (
    g && {
      ts: g.latest.ts.toISOString(),
      value: g.percent,
      period: monthOf(g.latest.ts),
      level: g.latest.value,
      base_period: monthOf(g.base.ts),
      base_level: g.base.value,
    }
  );
}

/** "YYYY-MM" of a monthly point. */
export const monthOf = (d: Date) => d.toISOString().slice(0, 7);
/** "YYYY-MM-DD" of a daily point. */
export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Start of the UTC day of `t`. */
export function utcDayStart(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

export interface Quake {
  id: string;
  ts: Date;
  magnitude: number | null;
  place: string;
}

/** Quakes with from < ts <= to. */
export function quakesIn(quakes: Quake[], from: number, to: number): Quake[] {
  return quakes.filter((q) => q.ts.getTime() > from && q.ts.getTime() <= to);
}

/** The largest quake of a list (the earlier one wins a tie); undefined without a magnitude. */
export function largestQuake(quakes: Quake[]): Quake | undefined {
  return quakes
    .filter((q) => q.magnitude !== null)
    .sort((a, b) => b.magnitude! - a.magnitude! || a.ts.getTime() - b.ts.getTime())[0];
}
