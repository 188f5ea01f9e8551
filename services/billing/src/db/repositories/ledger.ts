import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';
import type { PostedEntry } from '../../domain/ledger.js';

type Db = Kysely<Database> | Transaction<Database>;

const ENTRY_COLUMNS = [
  'id',
  'account_id',
  'created_at',
  'delta_atomic',
  'reason',
  'ref',
  'actor',
  'idempotency_key',
  'order_id',
  'tx_signature',
  'corrects_id',
] as const;

export async function findEntryByKey(
  db: Db,
  accountId: string,
  idempotencyKey: string,
): Promise<PostedEntry | undefined> {
  return db
    .selectFrom('ledger_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

export async function insertEntry(db: Db, entry: Omit<PostedEntry, 'id'>): Promise<PostedEntry> {
  return db.insertInto('ledger_entries').values(entry).returning(ENTRY_COLUMNS).executeTakeFirstOrThrow();
}

/** One page of an account's entries, newest first, strictly below `before` when given. */
export async function entriesPage(
  db: Db,
  accountId: string,
  limit: number,
  before: number | undefined,
): Promise<PostedEntry[]> {
  let query = db
    .selectFrom('ledger_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(limit);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.execute();
}

/** Entries of an account at or before a history position, newest first (for the merged history). */
export async function entriesBefore(
  db: Db,
  accountId: string,
  limit: number,
  before: { at: Date; id: number } | undefined,
): Promise<PostedEntry[]> {
  let query = db
    .selectFrom('ledger_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.at),
        eb.and([eb('created_at', '=', before.at), eb('id', '<', before.id)]),
      ]),
    );
  return query.execute();
}

/** The entries that moved money on one order (its spends and refunds). */
export async function entriesOfOrder(db: Db, accountId: string, orderId: string): Promise<PostedEntry[]> {
  return db
    .selectFrom('ledger_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export async function readBalance(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('balances')
    .select('balance_atomic')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.balance_atomic ?? 0;
}

/**
 * Moves the balance by `delta` unless it would go below zero: the row lock it takes serialises
 * concurrent postings of one account. Answers the new balance, or undefined when it does not fit.
 */
export async function moveBalance(
  trx: Transaction<Database>,
  accountId: string,
  delta: number,
  at: Date,
): Promise<number | undefined> {
  if (delta > 0) {
    const row = await trx
      .insertInto('balances')
      .values({ account_id: accountId, balance_atomic: delta, updated_at: at })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet((eb) => ({
          balance_atomic: eb('balances.balance_atomic', '+', delta),
          updated_at: at,
        })),
      )
      .returning('balance_atomic')
      .executeTakeFirstOrThrow();
    return row.balance_atomic;
  }
  const row = await trx
    .updateTable('balances')
    .set((eb) => ({ balance_atomic: eb('balance_atomic', '+', delta), updated_at: at }))
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb('balance_atomic', '+', delta), '>=', 0))
    .returning('balance_atomic')
    .executeTakeFirst();
  return row?.balance_atomic;
}

/** Locks the account's balance row for the transaction: purchases of one account run one at a time. */
export async function lockBalance(trx: Transaction<Database>, accountId: string): Promise<void> {
  await trx
    .selectFrom('balances')
    .select('account_id')
    .where('account_id', '=', accountId)
    .forUpdate()
    .execute();
}
