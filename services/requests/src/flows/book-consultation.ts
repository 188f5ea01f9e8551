import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  EVENTS,
  RPC,
  ok,
  refuse,
  upstream,
  type OrderQuote,
  type PostingReply,
  type Result,
  type Upstream,
  type bookingBodySchema,
} from '@meridian/contracts';
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import {
  bookingByKey,
  forgetRefused,
  countUnpaidHolds,
  findBooking,
  insertBooking,
  lockHolds,
  moveStatus,
  type BookingRow,
} from '../db/repositories/bookings.js';
import { bookable, slotAt } from '../domain/availability.js';
import { dayHoldLimit, dayOf, mayHoldUnpaid } from '../domain/holds.js';
import type { RequestsRefusal } from '../domain/refusals.js';
import type { RequestsDeps } from '../deps.js';
import { announce } from './events.js';

/** What billing prices a consulting booking as (its price table). */
export const BOOKING_ITEM = 'booking:consulting';
/** A booking paid from credit holds its slot this long if billing's answer is lost (the paid event confirms it). */
const CREDIT_HOLD_MS = 10 * 60_000;

type BookingAsked = z.infer<typeof bookingBodySchema>;

/** A booking, and whether an Idempotency-Key named it before (nothing new was booked). */
export interface Booked {
  booking: BookingRow;
  replayed: boolean;
}

/**
 * Books a consulting slot. The slot is held first (the exclusion constraint refuses a second
 * holder), then paid: from credit at once, or by a deposit whose memo is the booking id, within
 * the hold. Billing prices it and says where to pay. An Idempotency-Key names the booking: the
 * same key answers it (a double-sent purchase books and pays once), another body is a 409.
 */
export async function bookConsultation(
  deps: RequestsDeps,
  accountId: string,
  asked: BookingAsked,
  idempotencyKey?: string,
  now = new Date(),
): Promise<Result<Booked, RequestsRefusal> | Upstream> {
  if (idempotencyKey) {
    const earlier = await bookingByKey(deps.db, accountId, idempotencyKey);
    if (earlier) return replay(deps, earlier, asked, now);
  }
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
    idempotency_key: idempotencyKey ?? null,
  };
  const held =
    asked.payment === 'deposit'
      ? await holdUnpaid(deps, booking, now)
      : (await insertBooking(deps.db, booking))
        ? ok(booking)
        : taken();
  if (!held.ok) {
    // The same key sent twice at once: the first holds the slot (or the key), the second answers it.
    const earlier =
      held.code === 'conflict' && idempotencyKey
        ? await bookingByKey(deps.db, accountId, idempotencyKey)
        : undefined;
    return earlier ? replay(deps, earlier, asked, now) : held;
  }
  if (asked.payment === 'deposit') return ok({ booking, replayed: false });
  return payFromCredit(deps, booking, false, now);
}

async function replay(
  deps: RequestsDeps,
  booking: BookingRow,
  asked: BookingAsked,
  now: Date,
): Promise<Result<Booked, RequestsRefusal> | Upstream> {
  const same =
    booking.starts_at.getTime() === asked.starts_at.getTime() &&
    booking.payment === asked.payment &&
    booking.topic === (asked.topic || null);
  if (!same)
    return refuse(
      'conflict',
      'This Idempotency-Key named another booking (another slot, topic or way of paying).',
    );
  // A first answer lost to billing's silence: the spend is asked again, under the same order id.
  if (booking.status === 'awaiting_payment' && booking.payment === 'credit')
    return payFromCredit(deps, booking, true, now);
  return ok({ booking, replayed: true });
}

const taken = () => refuse('conflict', 'That slot was just booked; pick another.');

/**
 * Holds a slot for an on-chain payment within the account's and the day's caps, decided under
 * locks on both so that bookings asked at once are counted one after the other.
 */
async function holdUnpaid(
  deps: RequestsDeps,
  booking: BookingRow,
  now: Date,
): Promise<Result<BookingRow, RequestsRefusal>> {
  const { config } = deps;
  const day = dayOf(booking.starts_at);
  return deps.db.transaction().execute(async (trx): Promise<Result<BookingRow, RequestsRefusal>> => {
    await lockHolds(trx, [`account:${booking.account_id}`, `day:${day.from.toISOString()}`]);
    const held = {
      account: await countUnpaidHolds(trx, now, { accountId: booking.account_id }),
      day: await countUnpaidHolds(trx, now, day),
    };
    const limit = dayHoldLimit(
      config.CONSULTING_HOURS,
      config.CONSULTING_SLOT_MINUTES,
      config.holdRules,
      day.from,
    );
    const allowed = mayHoldUnpaid(config.holdRules, held, limit);
    if (!allowed.ok) return allowed;
    return (await insertBooking(trx, booking)) ? ok(booking) : taken();
  });
}

/** Billing refuses an order paid by deposit when it has no deposit address, so one is always set here. */
function payOf({ deposit_address, memo, asset, network }: OrderQuote) {
  if (deposit_address === null) throw new Error('billing quoted a deposit order without a deposit address');
  return { deposit_address, memo, asset, network };
}

async function payFromCredit(
  deps: RequestsDeps,
  booking: BookingRow,
  replayed: boolean,
  now: Date,
): Promise<Result<Booked, RequestsRefusal> | Upstream> {
  const spent = await deps.bus.request<PostingReply>(RPC.billingCreditSpend, {
    account_id: booking.account_id,
    order_id: booking.id,
    item: BOOKING_ITEM,
  });
  if (!spent.ok) {
    // Refused by billing (no credit...): the booking is forgotten, its slot and key free again. Billing
    // unreachable: the hold stays, and billing's paid event confirms it if the spend went through.
    if (spent.problem.status < 500) await forgetRefused(deps.db, booking.id);
    return upstream(spent.problem);
  }
  const confirmed = await deps.db
    .transaction()
    .execute((trx) => confirmBooking(trx, booking.id, 'awaiting_payment', now));
  // A replay paying alongside the first request finds it confirmed by the other: read it back.
  return ok({ booking: confirmed ?? (await findBooking(deps.db, booking.id)) ?? booking, replayed });
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
