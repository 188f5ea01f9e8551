/** Cadences of the catalogue: how often an upstream publishes and when its newest value is overdue. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
/** The longest month: a monthly series waits at most this for its next point. */
export const MONTH = 31 * DAY;

/** A cadence in words, and in numbers unless it is real-time (see MetricEntry.cadence_ms, max_age_ms). */
export type Cadence = string | { words: string; ms: number; maxAgeMs: number };

/**
 * When the newest value of an upstream is overdue: its own timestamp trails its publication by `lag`
 * (a month's mean is dated the 1st and published weeks after the month ends), the next publication
 * normally comes within `longestWait` (Friday's fixing waits until Monday), and two more missed
 * publications (a holiday, a late upstream, two failed polls) are still no reason to distrust it.
 */
function overdueAfter(every: number, lag: number, longestWait: number): number {
  return lag + longestWait + 2 * every;
}

/** An upstream that changes continuously, polled about every `seconds`: overdue after three polls. */
export function polled(seconds: number): Cadence {
  const words = seconds < 120 ? `${seconds} s` : `${seconds / 60} min`;
  const ms = seconds * 1000;
  return { words: `about ${words} polled`, ms, maxAgeMs: overdueAfter(ms, 0, ms) };
}

interface Publication {
  /** How far the value's own timestamp trails its publication. */
  lag?: number;
  /** Published on business days only: Friday's value waits three days for Monday's. */
  businessDays?: boolean;
}

/** An upstream that publishes every `every` ms on its own calendar. */
export function published(
  words: string,
  every: number,
  { lag = 0, businessDays = false }: Publication = {},
): Cadence {
  const longestWait = businessDays ? 3 * every : every;
  return { words, ms: every, maxAgeMs: overdueAfter(every, lag, longestWait) };
}

/** Open-Meteo's current conditions are 15-minutely model data (`current.interval` 900 s). */
export const OPEN_METEO_CURRENT = published('every 15 min', 15 * MINUTE);
