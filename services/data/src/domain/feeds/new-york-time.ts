/**
 * Wall-clock time in New York (America/New_York), the one zone the data service reads: NYC 311's
 * timestamps and day windows, and the Federal Register's publication day. The offset follows the
 * US rule in force since 2007 (Energy Policy Act of 2005): UTC−4 from the second Sunday of March,
 * 02:00 local, to the first Sunday of November, 02:00 local; UTC−5 otherwise. Computed here rather
 * than asked of Intl: the first Intl.DateTimeFormat with a time zone maps some 5 MB of ICU data
 * into the process for good (docs/memory.md). The unit test checks it against ICU hour by hour,
 * so a change of the law shows there first once node's ICU carries it.
 */
const HOUR_MS = 3_600_000;

/** The day of the month of the `n`th Sunday of `month` (0-based) in `year`. */
function nthSunday(year: number, month: number, n: number): number {
  const firstWeekday = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - firstWeekday) % 7) + (n - 1) * 7;
}

/** New York's offset from UTC at `instant`, in ms (negative: behind UTC). */
export function newYorkOffsetMs(instant: number): number {
  const year = new Date(instant).getUTCFullYear();
  // 02:00 EST is 07:00 UTC; 02:00 EDT is 06:00 UTC.
  const dstStart = Date.UTC(year, 2, nthSunday(year, 2, 2), 7);
  const dstEnd = Date.UTC(year, 10, nthSunday(year, 10, 1), 6);
  return (instant >= dstStart && instant < dstEnd ? -4 : -5) * HOUR_MS;
}

/** The UTC instant of a New York wall-clock time (the offset looked up for that instant). */
export function newYorkToUtc(wall: string): string {
  const asUtc = Date.parse(`${wall.replace(/\.\d+$/, '')}Z`);
  const guess = asUtc - newYorkOffsetMs(asUtc);
  return new Date(asUtc - newYorkOffsetMs(guess)).toISOString();
}

/** The New York date (YYYY-MM-DD) of `instant`. */
export function newYorkDate(instant: number): string {
  return new Date(instant + newYorkOffsetMs(instant)).toISOString().slice(0, 10);
}

/** Start of the New York day that contains `instant`, as a UTC instant. */
export function newYorkDayStart(instant: number): number {
  return Date.parse(newYorkToUtc(`${newYorkDate(instant)}T00:00:00`));
}
