/** The UTC instant of a wall-clock time in an IANA zone (offset looked up for that instant). */
export function zonedToUtc(wall: string, timeZone: string): string {
  const asUtc = Date.parse(`${wall.replace(/\.\d+$/, '')}Z`);
  const offset = zoneOffsetMs(asUtc, timeZone);
  const guess = asUtc - offset;
  return new Date(asUtc - zoneOffsetMs(guess, timeZone)).toISOString();
}

/** The wall-clock date (YYYY-MM-DD in `timeZone`) of `instant`. */
export function zonedDate(instant: number, timeZone: string): string {
  return new Date(instant + zoneOffsetMs(instant, timeZone)).toISOString().slice(0, 10);
}

/** Start of the wall-clock day (in `timeZone`) that contains `instant`, as a UTC instant. */
export function zonedDayStart(instant: number, timeZone: string): number {
  return Date.parse(zonedToUtc(`${zonedDate(instant, timeZone)}T00:00:00`, timeZone));
}

/**
 * One formatter per zone, made once: each Intl.DateTimeFormat holds ICU objects on the native
 * heap until its wrapper is collected, and a recording's rows (civic requests, one call each)
 * made thousands of them per play.
 */
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function offsetFormat(timeZone: string): Intl.DateTimeFormat {
  let format = offsetFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone, format);
  }
  return format;
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = offsetFormat(timeZone)
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(parts ?? '');
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}
