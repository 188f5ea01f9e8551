import { ok, refuse, type Result } from '@meridian/contracts';
import type { RequestsRefusal } from './refusals.js';

/**
 * Weekly consulting hours in UTC, e.g. "mon-fri 09:00-17:00; sat 10:00-13:00". Slots are cut from
 * each window from its start, `slotMinutes` long; a slot that would overrun the window is left out.
 */
export interface Window {
  day: number; // 0 = Sunday, as Date#getUTCDay
  fromMinute: number;
  toMinute: number;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

const minuteOf = (clock: string) =>
  clock === '24:00' ? 1440 : Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3));

function daysOf(spec: string): number[] | undefined {
  const [from = '', to = from] = spec.split('-');
  const a = DAYS.indexOf(from ?? '');
  const b = DAYS.indexOf(to);
  if (a < 0 || b < 0) return undefined;
  const days = [a];
  for (let d = a; d !== b;) days.push((d = (d + 1) % 7));
  return days;
}

/** Parses the setting; a refusal names the part it could not read. */
export function parseHours(text: string): Result<Window[], RequestsRefusal> {
  const windows: Window[] = [];
  for (const part of text
    .split(';')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean)) {
    const [daySpec, range] = part.split(/\s+/);
    const days = daysOf(daySpec ?? '');
    const [from, to] = (range ?? '').split('-');
    if (!days || !from || !to || !CLOCK.test(from) || !CLOCK.test(to) || minuteOf(from) >= minuteOf(to))
      return refuse('validation_failed', `"${part}": use e.g. "mon-fri 09:00-17:00"`);
    for (const day of days) windows.push({ day, fromMinute: minuteOf(from), toMinute: minuteOf(to) });
  }
  return windows.length > 0 ? ok(windows) : refuse('validation_failed', 'no consulting hours are given');
}

export interface Slot {
  starts_at: Date;
  ends_at: Date;
}

const DAY_MS = 86_400_000;

/** Every slot that starts in [from, to), in time order. */
export function slotsBetween(windows: readonly Window[], slotMinutes: number, from: Date, to: Date): Slot[] {
  const slots: Slot[] = [];
  const firstDay = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  for (let day = firstDay; day < to.getTime(); day += DAY_MS) {
    const weekday = new Date(day).getUTCDay();
    for (const w of windows.filter((x) => x.day === weekday).sort((a, b) => a.fromMinute - b.fromMinute))
      for (let m = w.fromMinute; m + slotMinutes <= w.toMinute; m += slotMinutes) {
        const starts = day + m * 60_000;
        if (starts >= from.getTime() && starts < to.getTime())
          slots.push({ starts_at: new Date(starts), ends_at: new Date(starts + slotMinutes * 60_000) });
      }
  }
  return slots;
}

/** The slot that starts exactly at `startsAt`, if the hours have one. */
export function slotAt(windows: readonly Window[], slotMinutes: number, startsAt: Date): Slot | undefined {
  return slotsBetween(windows, slotMinutes, startsAt, new Date(startsAt.getTime() + 1)).find(
    (s) => s.starts_at.getTime() === startsAt.getTime(),
  );
}

export interface BookingRules {
  /** Earliest start, from now. */
  noticeMs: number;
  /** Latest start, from now. */
  horizonMs: number;
}

/** Whether a slot may be booked now: far enough ahead, not too far. */
export function bookable(slot: Slot, rules: BookingRules, now: Date): Result<Slot, RequestsRefusal> {
  const ahead = slot.starts_at.getTime() - now.getTime();
  if (ahead < rules.noticeMs)
    return refuse(
      'validation_failed',
      `A booking starts at least ${rules.noticeMs / 3_600_000} hours from now.`,
    );
  if (ahead > rules.horizonMs)
    return refuse('validation_failed', `A booking starts at most ${rules.horizonMs / DAY_MS} days from now.`);
  return ok(slot);
}
