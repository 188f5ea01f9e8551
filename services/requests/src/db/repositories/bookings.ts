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
] as const;

const isOverlap = (err: unknown) => (err as { constraint?: string }).constraint === 'bookings_no_overlap';

/** Holds a slot; false when a live booking already holds any of its time (the exclusion constraint). */
export async function insertBooking(db: Db, booking: BookingRow): Promise<boolean> {
  try {
    await db
      .insertInto('bookings')
      .values({ ...booking, pay: booking.pay ? JSON.stringify(booking.pay) : null } as never)
      .execute();
    return true;
  } catch (err) {
    if (isOverlap(err)) return false;
    throw err;
  }
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

/** Every account's bookings starting in a window, earliest first (the operators' view). */
export async function bookingsBetween(
  db: Db,
  window: { from: Date; to: Date; status?: string | undefined },
  limit: number,
): Promise<BookingRow[]> {
  let query = db
    .selectFrom('bookings')
    .select(COLUMNS)
    .where('starts_at', '>=', window.from)
    .where('starts_at', '<', window.to);
  if (window.status) query = query.where('status', '=', window.status);
  return query.orderBy('starts_at').limit(limit).execute();
}
