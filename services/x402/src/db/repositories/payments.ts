import type { Kysely } from 'kysely';
import type { Database, PaymentState } from '../database.js';

export interface PaymentRow {
  payment_id: string;
  state: PaymentState;
  payer: string | null;
  amount_atomic: number;
  asset: string;
  network: string;
  pay_to: string;
  resource: string;
  transaction: string | null;
  error_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
  checked_at: Date | null;
}

const COLUMNS = [
  'payment_id',
  'state',
  'payer',
  'amount_atomic',
  'asset',
  'network',
  'pay_to',
  'resource',
  'transaction',
  'error_reason',
  'created_at',
  'settled_at',
  'checked_at',
] as const;

export async function findPayment(db: Kysely<Database>, paymentId: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').select(COLUMNS).where('payment_id', '=', paymentId).executeTakeFirst();
}

/**
 * Claims a payment before it is settled: true when this call wrote the row, false when any
 * replica (or an earlier call) holds it already. The primary key decides, in one statement.
 */
export async function claimPayment(
  db: Kysely<Database>,
  row: Pick<
    PaymentRow,
    'payment_id' | 'payer' | 'amount_atomic' | 'asset' | 'network' | 'pay_to' | 'resource' | 'created_at'
  > & { payload: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('payments')
    .values({
      ...row,
      state: 'settling',
      transaction: null,
      error_reason: null,
      settled_at: null,
      checked_at: null,
    })
    .onConflict((oc) => oc.column('payment_id').doNothing())
    .returning('payment_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Marks a payment settled, once: true when this call moved it (from an open state), so the event
 * that announces it is written once however many replicas reconcile it.
 */
export async function markSettled(
  db: Kysely<Database>,
  paymentId: string,
  settled: { payer: string; transaction: string; settled_at: Date },
): Promise<boolean> {
  const moved = await db
    .updateTable('payments')
    .set({ state: 'settled', ...settled, error_reason: null, payload: null })
    .where('payment_id', '=', paymentId)
    .where('state', 'in', ['settling', 'pending', 'unreconciled'])
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}

export async function markUnsettled(
  db: Kysely<Database>,
  paymentId: string,
  state: 'pending' | 'failed' | 'unreconciled',
  outcome: { transaction: string | null; error_reason: string },
): Promise<void> {
  await db
    .updateTable('payments')
    // A failed payment is closed: what it carried is no longer kept.
    .set({ state, ...outcome, ...(state === 'failed' ? { payload: null } : {}) })
    .where('payment_id', '=', paymentId)
    .where('state', 'in', ['settling', 'pending', 'unreconciled'])
    .execute();
}

/** Gives a claim back: nothing was sent to the chain, so the same payment may be tried again. */
export async function releasePayment(db: Kysely<Database>, paymentId: string): Promise<void> {
  await db
    .deleteFrom('payments')
    .where('payment_id', '=', paymentId)
    .where('state', '=', 'settling')
    .execute();
}

/** A payment whose outcome is open, with the payment as received when it was kept. */
export type OpenPayment = PaymentRow & { payload: string | null };

/**
 * Payments left `settling` or `pending` since before `claimedBefore` and not looked at since
 * `checkedBefore`, oldest first: what the reconciliation job takes on a pass.
 */
export async function openPayments(
  db: Kysely<Database>,
  claimedBefore: Date,
  checkedBefore: Date,
  limit: number,
): Promise<OpenPayment[]> {
  return db
    .selectFrom('payments')
    .select([...COLUMNS, 'payload'])
    .where('state', 'in', ['settling', 'pending'])
    .where('created_at', '<', claimedBefore)
    .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', checkedBefore)]))
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function markChecked(db: Kysely<Database>, paymentId: string, at: Date): Promise<void> {
  await db.updateTable('payments').set({ checked_at: at }).where('payment_id', '=', paymentId).execute();
}

/** Payments reconciliation could not close, for an operator: oldest first. */
export async function unreconciledPayments(db: Kysely<Database>, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .select(COLUMNS)
    .where('state', '=', 'unreconciled')
    .orderBy('created_at')
    .orderBy('payment_id')
    .limit(limit)
    .execute();
}
