import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export type BookingRow = Database['bookings'];

const COLUMNS = [
  'id',
  'account_id',
  'starts_at',
  'ends_at',
  'status',
  'topic',
  'payment',
  'amount_atomic',
  'pay',
  'created_at',
  'expires_at',
  'confirmed_at',
  'idempotency_key',
] as const;

const constraintOf = (err: unknown) => (err as { constraint?: string }).constraint;

/**
 * Holds a slot: 'held', or 'taken' when a live booking already holds any of its time (the
 * exclusion constraint), or 'key_used' when the account's Idempotency-Key named another booking.
 */
export async function insertBooking(db: Db, booking: BookingRow): Promise<'held' | 'taken' | 'key_used'> {
  try {
    await db
      .insertInto('bookings')
      .values({ ...booking, pay: booking.pay ? JSON.stringify(booking.pay) : null } as never)
      .execute();
    return 'held';
  } catch (err) {
    if (constraintOf(err) === 'bookings_no_overlap') return 'taken';
    // A unique index names itself in the error, as a constraint does.
    if (constraintOf(err) === 'bookings_idempotency_key') return 'key_used';
    throw err;
  }
}

/** The booking an account asked for with an Idempotency-Key, if any. */
export async function bookingByKey(db: Db, accountId: string, key: string): Promise<BookingRow | undefined> {
  return db
    .selectFrom('bookings')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** A booking whose payment was refused gives its key back: asking again with it books anew. */
export async function cancelRefused(db: Db, id: string): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ status: 'cancelled', idempotency_key: null })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_payment')
    .execute();
}

export async function bookingsOf(db: Db, accountId: string, limit: number): Promise<BookingRow[]> {
  return db
    .selectFrom('bookings')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('starts_at', 'desc')
    .limit(limit)
    .execute();
}

export async function findBooking(db: Db, id: string): Promise<BookingRow | undefined> {
  return db.selectFrom('bookings').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Live bookings overlapping [from, to): whose time is taken (never whose booking it is). */
export async function takenBetween(
  db: Db,
  from: Date,
  to: Date,
): Promise<Array<{ starts_at: Date; ends_at: Date }>> {
  return db
    .selectFrom('bookings')
    .select(['starts_at', 'ends_at'])
    .where('status', 'in', ['awaiting_payment', 'confirmed'])
    .where('starts_at', '<', to)
    .where('ends_at', '>', from)
    .execute();
}

/** Moves a booking from one status to another; false when it was not in `from` any more. */
export async function moveStatus(db: Db, id: string, from: string, to: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('bookings')
    .set({ status: to, ...(to === 'confirmed' ? { confirmed_at: at, expires_at: null } : {}) })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Bookings whose hold ran out unpaid, now expired (their time is free again); answers their ids. */
export async function expireHolds(db: Db, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('bookings')
    .set({ status: 'expired' })
    .where('status', '=', 'awaiting_payment')
    .where('expires_at', '<=', now)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
