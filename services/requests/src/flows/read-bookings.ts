import type { z } from 'zod';
import type { bookingSchema, slotSchema } from '@meridian/contracts';
import { bookingsOf, takenBetween, type BookingRow } from '../db/repositories/bookings.js';
import { bookable, slotsBetween } from '../domain/availability.js';
import type { RequestsDeps } from '../deps.js';

const DAY_MS = 86_400_000;
/** The longest window GET /v1/consulting/slots answers. */
export const MAX_WINDOW_DAYS = 31;

/**
 * The slots of the consulting hours starting in [from, to), each marked available or not. A slot
 * is available only when a booking of it now would be taken: inside the notice, past the horizon
 * or held by a live booking it is not; whose booking holds it never shows.
 */
export async function readSlots(
  deps: RequestsDeps,
  from: Date,
  to: Date,
  now = new Date(),
): Promise<z.infer<typeof slotSchema>[]> {
  const slots = slotsBetween(deps.config.CONSULTING_HOURS, deps.config.CONSULTING_SLOT_MINUTES, from, to);
  const taken = await takenBetween(deps.db, from, new Date(to.getTime() + DAY_MS));
  return slots.map((s) => ({
    starts_at: s.starts_at.toISOString(),
    ends_at: s.ends_at.toISOString(),
    available:
      bookable(s, deps.config.bookingRules, now).ok &&
      !taken.some((t) => t.starts_at < s.ends_at && t.ends_at > s.starts_at),
  }));
}

export function bookingView(b: BookingRow): z.infer<typeof bookingSchema> {
  return {
    id: b.id,
    starts_at: b.starts_at.toISOString(),
    ends_at: b.ends_at.toISOString(),
    status: b.status as z.infer<typeof bookingSchema>['status'],
    topic: b.topic,
    payment: b.payment as 'credit' | 'deposit',
    amount_atomic: b.amount_atomic,
    created_at: b.created_at.toISOString(),
    expires_at: b.status === 'awaiting_payment' && b.expires_at ? b.expires_at.toISOString() : null,
    pay: b.status === 'awaiting_payment' ? b.pay : null,
  };
}

/** The caller's own bookings, latest start first. */
export async function readBookings(deps: RequestsDeps, accountId: string) {
  return (await bookingsOf(deps.db, accountId, 200)).map(bookingView);
}
