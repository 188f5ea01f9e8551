/**
 * The replay clock: how recorded data is played in the present. Two mappings, both pure and both
 * depending on the wall clock only, so a restart replays exactly the rows it stored before (idempotent
 * ingestion sees nothing new):
 *
 * - the looped mapping (`loopedRange`), for the recorded market bars: wall time w plays recorded time
 *   start + (w mod span), in loop floor(w / span); a span of whole days keeps UTC day boundaries;
 * - the whole-unit shift (`replayShift`), for the recorded feeds: a recording moves forward by whole
 *   days (whole months for monthly series), so its newest point lands at most one unit before now;
 * - the slot shift (`slotShift`), for feeds whose values age in minutes (weather, network, quakes,
 *   scoreboards, tides, Kp): the recording's instant lands at the start of the current slot of the
 *   feed's cadence, and is played again at each new slot, so an answer is as fresh as the recorded
 *   data was when it was recorded, plus less than one cadence.
 */

import { barAt, firstAtOrAfter, valueAt, type BarColumns } from './series/bar-columns.js';
import type { Bar } from './series/bar.js';

const DAY_MS = 86_400_000;

/** A recording played in a loop: its first recorded instant and its length. */
export interface LoopedRecording {
  start: number;
  spanMs: number;
}

/** Rows (ascending by ts, recorded times) whose looped time falls in [wallFrom, wallTo), at that time. */
export function loopedRange<T extends { ts: number }>(
  rec: LoopedRecording,
  rows: T[],
  wallFrom: number,
  wallTo: number,
): T[] {
  const out: T[] = [];
  for (const { from, to, shiftMs } of loopedSpans(rec, wallFrom, wallTo))
    for (let i = lowerBound(rows, from); i < rows.length && rows[i]!.ts < to; i++)
      out.push({ ...rows[i]!, ts: rows[i]!.ts + shiftMs });
  return out;
}

/** The same for bars held as columns: the bars whose looped time falls in [wallFrom, wallTo), at that time. */
export function loopedBars(rec: LoopedRecording, cols: BarColumns, wallFrom: number, wallTo: number): Bar[] {
  const out: Bar[] = [];
  for (const { from, to, shiftMs } of loopedSpans(rec, wallFrom, wallTo))
    for (let i = firstAtOrAfter(cols, from); i < cols.length && valueAt(cols.ts, i) < to; i++)
      out.push(barAt(cols, i, shiftMs));
  return out;
}

/**
 * The recorded spans [from, to) that the wall range [wallFrom, wallTo) plays, one per loop it
 * reaches into, each with the shift from recorded to wall time.
 */
export function loopedSpans(rec: LoopedRecording, wallFrom: number, wallTo: number) {
  const spans: { from: number; to: number; shiftMs: number }[] = [];
  for (let loop = Math.floor(wallFrom / rec.spanMs); loop * rec.spanMs < wallTo; loop++) {
    const loopStart = loop * rec.spanMs;
    spans.push({
      from: Math.max(wallFrom, loopStart) - loopStart + rec.start,
      to: Math.min(wallTo, loopStart + rec.spanMs) - loopStart + rec.start,
      shiftMs: loopStart - rec.start,
    });
  }
  return spans;
}

/** The recorded instant a looped recording plays at wall time `wall`. */
export function loopedRecordedTime(rec: LoopedRecording, wall: number): number {
  return rec.start + (((wall % rec.spanMs) + rec.spanMs) % rec.spanMs);
}

function lowerBound(rows: { ts: number }[], ts: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Maps a recorded timestamp to the time it is replayed at. */
export type ReplayClock = (recorded: number | string | Date) => string;

export type ShiftUnit = 'day' | 'month';

export interface ReplayShift {
  clock: ReplayClock;
  /** The shift in words, for the provenance: "shifted by 730 days". */
  shift: string;
  days?: number;
  months?: number;
}

const ms = (t: number | string | Date): number =>
  typeof t === 'number' ? t : t instanceof Date ? t.getTime() : Date.parse(t);

/**
 * The whole-unit shift of a recording made at `recordedAt`: by whole days (or whole months for monthly
 * series), so that the time of day of every print (an 08:00 UTC expiry, a 15:00 fix) and the calendar
 * shape survive, and the newest recorded point lands at most one unit before `now`, never in the future.
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

/**
 * The shift that lands `recordedAt` at the start of the current `slotMs` slot of the wall clock
 * (slots aligned to the epoch): the same for every instant of a slot, so a replay within one slot
 * writes the same rows again.
 */
export function slotShift(recordedAt: string, now: Date, slotMs: number): ReplayShift {
  const slotStart = Math.floor(now.getTime() / slotMs) * slotMs;
  return shiftBy(
    slotStart - ms(recordedAt),
    `played at ${new Date(slotStart).toISOString()}, replayed every ${slotMs / 60_000} min`,
  );
}

/** The clock of a shift by a known number of ms (a play whose marker says where it landed). */
export function shiftBy(deltaMs: number, words = `shifted by ${deltaMs} ms`): ReplayShift {
  return { clock: (t) => new Date(ms(t) + deltaMs).toISOString(), shift: words };
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

/** The identity clock: recorded data kept at its recorded time (an import, a parser under test). */
export const recordedTime: ReplayClock = (t) => new Date(ms(t)).toISOString();
