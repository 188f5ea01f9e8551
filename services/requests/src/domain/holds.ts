import { ok, refuse, type Result } from '@meridian/contracts';
import type { RequestsRefusal } from './refusals.js';
import { slotsBetween, type Window } from './availability.js';

/** How far slots held for an on-chain payment may go before one is paid. */
export interface HoldRules {
  /** Unpaid holds one account may have at once. */
  perAccount: number;
  /** The fraction of a day's slots unpaid holds may take together. */
  dayShare: number;
}

const DAY_MS = 86_400_000;

/** The UTC day a moment falls in, as [start, end). */
export function dayOf(at: Date): { from: Date; to: Date } {
  const start = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
  return { from: new Date(start), to: new Date(start + DAY_MS) };
}

/** How many unpaid holds a UTC day takes at most: the share of its slots, rounded down. */
export function dayHoldLimit(
  windows: readonly Window[],
  slotMinutes: number,
  rules: HoldRules,
  at: Date,
): number {
  const { from, to } = dayOf(at);
  return Math.floor(slotsBetween(windows, slotMinutes, from, to).length * rules.dayShare);
}

/**
 * Whether one more unpaid hold may be taken, given the live unpaid holds of the account and of
 * the slot's day: a slot held without paying is a slot no one else can book, so holds are capped
 * per account and never take more than a share of a day.
 */
export function mayHoldUnpaid(
  rules: HoldRules,
  held: { account: number; day: number },
  dayLimit: number,
): Result<true, RequestsRefusal> {
  if (held.account >= rules.perAccount)
    return refuse(
      'hold_limit',
      `An account holds at most ${rules.perAccount} unpaid bookings at once: pay one, or book from credit.`,
    );
  if (held.day >= dayLimit)
    return refuse(
      'hold_limit',
      "Unpaid bookings already hold their share of that day's slots: book from credit, or pick another day.",
    );
  return ok(true);
}
