import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface OrderRow {
  order_id: string;
  account_id: string;
  kind: string;
  item: string;
  amount_atomic: number;
  created_at: Date;
  paid_at: Date | null;
  paid_by: string | null;
}

const ORDER_COLUMNS = ['order_id', 'account_id', 'kind', 'item', 'amount_atomic', 'created_at', 'paid_at', 'paid_by'] as const;

/** The order, locked for the rest of the transaction so a deposit and a spend cannot both pay it. */
export async function lockOrder(trx: Transaction<Database>, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').select(ORDER_COLUMNS).where('order_id', '=', orderId).forUpdate().executeTakeFirst();
}

/** Inserts the order unless its id exists; answers the row that holds the id either way. */
export async function ensureOrder(trx: Transaction<Database>, order: Omit<OrderRow, 'paid_at' | 'paid_by'>): Promise<OrderRow> {
  await trx.insertInto('orders').values(order).onConflict((oc) => oc.column('order_id').doNothing()).execute();
  return trx.selectFrom('orders').select(ORDER_COLUMNS).where('order_id', '=', order.order_id).forUpdate().executeTakeFirstOrThrow();
}

export async function markOrderPaid(trx: Transaction<Database>, orderId: string, paidBy: 'credit' | 'deposit', at: Date): Promise<void> {
  await trx.updateTable('orders').set({ paid_at: at, paid_by: paidBy }).where('order_id', '=', orderId).execute();
}
