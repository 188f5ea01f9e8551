import { newYorkDate } from './new-york-time.js';

/**
 * The date windows of the live connectors whose queries move with the clock: built from
 * the `now` each poll is given, so a test (or a restart) asks exactly what it expects.
 */

const DAY_MS = 86_400_000;

/** The Federal Register's publication day of `now`: it publishes on Washington's calendar. */
export function federalRegisterDay(now: Date): string {
  return newYorkDate(now.getTime());
}

/**
 * NYC 311's `$where` lower bound: midnight New York time, `days` days before today (Socrata's
 * created_date is New York wall time without offset, so the bound is written the same way).
 */
export function nyc311Since(now: Date, days: number): string {
  return `${newYorkDate(now.getTime() - days * DAY_MS)}T00:00:00`;
}

/** Fiscal Data's `record_date:gte:` bound: the UTC date `days` days before `now`. */
export function fiscalDataSince(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);
}

/** NOAA CO-OPS `begin_date`/`end_date` (time_zone=gmt, `yyyyMMdd HH:mm`): the last `minutes` before `now`. */
export function tidesRange(now: Date, minutes: number): { begin_date: string; end_date: string } {
  const coops = (ms: number) => {
    const iso = new Date(ms).toISOString();
    return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)} ${iso.slice(11, 16)}`;
  };
  return { begin_date: coops(now.getTime() - minutes * 60_000), end_date: coops(now.getTime()) };
}
