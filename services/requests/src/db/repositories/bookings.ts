import { sql, type Kysely, type Transaction } from 'kysely';
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

/**
 * Holds a slot; false when a live booking already holds any of its time, or the account's
 * Idempotency-Key names another booking. ON CONFLICT DO NOTHING takes the exclusion constraint and
 * the key's unique index as arbiters, so a lost race leaves a transaction usable.
 */
export async function insertBooking(db: Db, booking: BookingRow): Promise<boolean> {
  const inserted = await db
    .insertInto('bookings')
    .values({ ...booking, pay: booking.pay ? JSON.stringify(booking.pay) : null } as never)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
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

/**
 * A booking whose payment from credit was refused leaves nothing behind: no row in the person's
 * list, its slot free and its Idempotency-Key free, so asking again with it books anew.
 */
export async function forgetRefused(db: Db, id: string): Promise<void> {
  await db.deleteFrom('bookings').where('id', '=', id).where('status', '=', 'awaiting_payment').execute();
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

/**
 * Serialises the hold decisions over the given keys until `trx` ends, so two bookings asked at the
 * same moment cannot both see room for one more unpaid hold. Callers pass keys in one fixed order.
 */
export async function lockHolds(trx: Transaction<Database>, keys: readonly string[]): Promise<void> {
  for (const key of keys)
    await sql`select pg_advisory_xact_lock(hashtextextended(${`requests.hold:${key}`}, 0))`.execute(trx);
}

/** Live unpaid holds for an on-chain payment: of one account, or (no account) starting in [from, to). */
export async function countUnpaidHolds(
  db: Db,
  now: Date,
  scope: { accountId: string } | { from: Date; to: Date },
): Promise<number> {
  let query = db
    .selectFrom('bookings')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', 'awaiting_payment')
    .where('payment', '=', 'deposit')
    .where('expires_at', '>', now);
  query =
    'accountId' in scope
      ? query.where('account_id', '=', scope.accountId)
      : query.where('starts_at', '>=', scope.from).where('starts_at', '<', scope.to);
  return Number((await query.executeTakeFirstOrThrow()).n);
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
