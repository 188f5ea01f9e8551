import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  EVENTS,
  RPC,
  ok,
  refuse,
  type OrderQuote,
  type PostingReply,
  type Problem,
  type Result,
  type bookingBodySchema,
} from '@meridian/contracts';
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { findBooking, insertBooking, moveStatus, type BookingRow } from '../db/repositories/bookings.js';
import { bookable, slotAt } from '../domain/availability.js';
import type { RequestsDeps } from '../deps.js';
import { announce } from './events.js';

/** What billing prices a consulting booking as (its price table). */
export const BOOKING_ITEM = 'booking:consulting';
/** A booking paid from credit holds its slot this long if billing's answer is lost (the paid event confirms it). */
const CREDIT_HOLD_MS = 10 * 60_000;

type BookingAsked = z.infer<typeof bookingBodySchema>;

/** A refusal that carries billing's own problem (402, 409, 503...) through to the client. */
export type Upstream = { ok: false; code: 'upstream'; detail: string; problem: Problem };
const upstream = (problem: Problem): Upstream => ({
  ok: false,
  code: 'upstream',
  detail: problem.detail,
  problem,
});

/**
 * Books a consulting slot. The slot is held first (the exclusion constraint refuses a second
 * holder), then paid: from credit at once, or by a deposit whose memo is the booking id, within
 * the hold. Billing prices it and says where to pay.
 */
export async function bookConsultation(
  deps: RequestsDeps,
  accountId: string,
  asked: BookingAsked,
  now = new Date(),
): Promise<Result<BookingRow> | Upstream> {
  const { config } = deps;
  const slot = slotAt(config.CONSULTING_HOURS, config.CONSULTING_SLOT_MINUTES, asked.starts_at);
  if (!slot)
    return refuse(
      'validation_failed',
      'starts_at: not the start of a consulting slot; see GET /v1/consulting/slots',
    );
  const open = bookable(slot, config.bookingRules, now);
  if (!open.ok) return open;
  const id = `booking-${randomUUID()}`;
  const quote = await deps.bus.request<OrderQuote>(RPC.billingOrderRegister, {
    account_id: accountId,
    order_id: id,
    item: BOOKING_ITEM,
    payment: asked.payment,
  });
  if (!quote.ok) return upstream(quote.problem);
  const hold = asked.payment === 'credit' ? CREDIT_HOLD_MS : config.BOOKING_HOLD_MINUTES * 60_000;
  const booking: BookingRow = {
    id,
    account_id: accountId,
    starts_at: slot.starts_at,
    ends_at: slot.ends_at,
    status: 'awaiting_payment',
    topic: asked.topic || null,
    payment: asked.payment,
    amount_atomic: quote.data.amount_atomic,
    pay: asked.payment === 'deposit' ? payOf(quote.data) : null,
    created_at: now,
    expires_at: new Date(now.getTime() + hold),
    confirmed_at: null,
  };
  if (!(await insertBooking(deps.db, booking)))
    return refuse('conflict', 'That slot was just booked; pick another.');
  if (asked.payment === 'deposit') return ok(booking);
  return payFromCredit(deps, booking, now);
}

/** Billing refuses an order paid by deposit when it has no deposit address, so one is always set here. */
function payOf({ deposit_address, memo, asset, network }: OrderQuote) {
  if (deposit_address === null) throw new Error('billing quoted a deposit order without a deposit address');
  return { deposit_address, memo, asset, network };
}

async function payFromCredit(
  deps: RequestsDeps,
  booking: BookingRow,
  now: Date,
): Promise<Result<BookingRow> | Upstream> {
  const spent = await deps.bus.request<PostingReply>(RPC.billingCreditSpend, {
    account_id: booking.account_id,
    order_id: booking.id,
    item: BOOKING_ITEM,
  });
  if (!spent.ok) {
    // Refused by billing (no credit...): the slot is free again. Billing unreachable: the hold
    // stays, and billing's paid event confirms it if the spend went through after all.
    if (spent.problem.status < 500)
      await moveStatus(deps.db, booking.id, 'awaiting_payment', 'cancelled', now);
    return upstream(spent.problem);
  }
  const confirmed = await deps.db
    .transaction()
    .execute((trx) => confirmBooking(trx, booking.id, 'awaiting_payment', now));
  return ok(confirmed ?? booking);
}

/** Confirms a paid booking and announces it (identity mails the account), once: inside `trx`. */
export async function confirmBooking(
  trx: Transaction<Database>,
  id: string,
  from: 'awaiting_payment' | 'expired',
  at: Date,
): Promise<BookingRow | undefined> {
  if (!(await moveStatus(trx, id, from, 'confirmed', at))) return undefined;
  const booking = (await findBooking(trx, id))!;
  await announce(trx, EVENTS.requestsBookingConfirmed, {
    booking_id: id,
    account_id: booking.account_id,
    starts_at: booking.starts_at.toISOString(),
    ends_at: booking.ends_at.toISOString(),
    topic: booking.topic,
  });
  return booking;
}
