const DAY_MS = 86_400_000;

/** Maps a recorded timestamp to the time it is replayed at. */
export type ReplayClock = (recorded: number | string | Date) => string;

export type ShiftUnit = 'day' | 'month';

export interface ReplayShift {
  clock: ReplayClock;
  /** Human words for the provenance: "shifted by 730 days". */
  shift: string;
  days?: number;
  months?: number;
}

const ms = (t: number | string | Date): number =>
  typeof t === 'number' ? t : t instanceof Date ? t.getTime() : Date.parse(t);

/**
 * A recording replays shifted by whole days (or whole months for monthly series), so that the
 * time of day of every print (an 08:00 UTC expiry, a 15:00 fix) and the calendar shape survive,
 * and the newest recorded point lands at most one unit before `now`, never in the future.
 */
export function replayShift(recordedAt: string, now: Date, unit: ShiftUnit): ReplayShift {
  const recorded = ms(recordedAt);
  if (unit === 'day') {
    const days = Math.max(0, Math.floor((now.getTime() - recorded) / DAY_MS));
    return {
      clock: (t) => new Date(ms(t) + days * DAY_MS).toISOString(),
      shift: `shifted by ${days} days`,
      days,
    };
  }
  const r = new Date(recorded);
  let months = (now.getUTCFullYear() - r.getUTCFullYear()) * 12 + now.getUTCMonth() - r.getUTCMonth();
  if (addMonths(recorded, months) > now.getTime()) months -= 1;
  months = Math.max(0, months);
  return {
    clock: (t) => new Date(addMonths(ms(t), months)).toISOString(),
    shift: `shifted by ${months} months`,
    months,
  };
}

/** Adds calendar months in UTC, clamping the day to the target month's length. */
export function addMonths(t: number, months: number): number {
  const d = new Date(t);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  target.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return target.getTime();
}

/** The identity clock: parsers run in recorded time in tests. */
export const recordedTime: ReplayClock = (t) => new Date(ms(t)).toISOString();
