/**
 * The pure arithmetic of the explorer's charts: nice value ticks, time ticks and their labels. No
 * DOM here, so the chart's drawing (chart.ts) stays a thin layer over these numbers.
 */

/** Ticks at 1, 2 or 5 × 10^k covering [min, max], about `count` of them. */
export function valueTicks(min: number, max: number, count: number): { ticks: number[]; step: number } {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const first = Math.ceil(min / step) * step;
  const ticks: number[] = [];
  for (let t = first; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return { ticks, step };
}

/** Digits after the point that tell ticks `step` apart. */
export const decimalsFor = (step: number) => Math.min(8, Math.max(0, -Math.floor(Math.log10(step))));

/** A value as the axis and the readout write it: grouped digits, as many decimals as the step needs. */
export function valueLabel(value: number, decimals: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [
  SECOND,
  5 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  30 * DAY,
  365 * DAY,
];

/**
 * Time ticks on whole steps of the person's own clock (a 15-minute step falls on :00, :15, …), at
 * most `count` of them.
 */
export function timeTicks(from: number, to: number, count: number): { ticks: number[]; step: number } {
  const span = Math.max(to - from, SECOND);
  const step = TIME_STEPS.find((s) => span / s <= Math.max(1, count)) ?? 365 * DAY;
  // Whole steps of local time: shift by the zone's offset before rounding, back after.
  const offset = new Date(from).getTimezoneOffset() * MINUTE;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const ticks: number[] = [];
  for (let t = first; t <= to; t += step) ticks.push(t);
  return { ticks, step };
}

/** A time as an axis under a span of `step` writes it: the clock within a day, else the date. */
export function timeLabel(ms: number, step: number): string {
  const d = new Date(ms);
  if (step >= DAY) return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  return d.toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    ...(step < MINUTE ? { second: '2-digit' } : {}),
  });
}

/** A linear map from a domain onto a range of pixels. */
export function scale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** The index of the time in an ascending list nearest to `t`. */
export function nearest(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! < t) lo = mid;
    else hi = mid;
  }
  return Math.abs(times[hi]! - t) < Math.abs(times[lo]! - t) ? hi : lo;
}
