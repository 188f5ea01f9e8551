import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export type DepositKind = 'topup' | 'order_payment' | 'retired_rail' | 'unmatched';

export interface DepositRow {
  id: number;
  tx_signature: string;
  slot: number;
  block_time: Date | null;
  amount_atomic: number;
  memo: string | null;
  kind: DepositKind;
  account_id: string | null;
  order_id: string | null;
  recorded_at: Date;
}

/** Records a deposit once: false when its signature was recorded before (nothing written). */
export async function insertDeposit(
  trx: Transaction<Database>,
  deposit: Omit<DepositRow, 'id'>,
): Promise<boolean> {
  const row = await trx
    .insertInto('deposits')
    .values(deposit)
    .onConflict((oc) => oc.column('tx_signature').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Direct payments of an account's own orders at or before a history position, newest first. */
export async function orderPaymentsBefore(
  db: Db,
  accountId: string,
  limit: number,
  before: { at: Date; id: number } | undefined,
): Promise<Array<DepositRow & { order_kind: string | null }>> {
  let query = db
    .selectFrom('deposits')
    .leftJoin('orders', 'orders.order_id', 'deposits.order_id')
    .select((eb) => [
      'deposits.id',
      'deposits.tx_signature',
      'deposits.slot',
      'deposits.block_time',
      // What paid the order: the excess of an overpayment is a top-up entry of its own.
      eb.fn.coalesce('orders.amount_atomic', 'deposits.amount_atomic').as('amount_atomic'),
      'deposits.memo',
      'deposits.kind',
      'deposits.account_id',
      'deposits.order_id',
      'deposits.recorded_at',
      'orders.kind as order_kind',
    ])
    .where('deposits.account_id', '=', accountId)
    .where('deposits.kind', '=', 'order_payment')
    .orderBy('deposits.recorded_at', 'desc')
    .orderBy('deposits.id', 'desc')
    .limit(limit);
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb('deposits.recorded_at', '<', before.at),
        eb.and([eb('deposits.recorded_at', '=', before.at), eb('deposits.id', '<', before.id)]),
      ]),
    );
  return (await query.execute()) as Array<DepositRow & { order_kind: string | null }>;
}

export async function readCursor(db: Db, address: string): Promise<string | null> {
  const row = await db
    .selectFrom('watcher_cursors')
    .select('last_signature')
    .where('address', '=', address)
    .executeTakeFirst();
  return row?.last_signature ?? null;
}

export async function saveCursor(trx: Db, address: string, signature: string, at: Date): Promise<void> {
  await trx
    .insertInto('watcher_cursors')
    .values({ address, last_signature: signature, updated_at: at })
    .onConflict((oc) => oc.column('address').doUpdateSet({ last_signature: signature, updated_at: at }))
    .execute();
}

/** Deposits no memo rule could place, newest first: for an operator, never for an account's history. */
export async function unmatchedDeposits(db: Db, limit: number) {
  return db
    .selectFrom('deposits')
    .select(['tx_signature', 'amount_atomic', 'memo', 'recorded_at'])
    .where('kind', '=', 'unmatched')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
