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
  >,
): Promise<boolean> {
  const inserted = await db
    .insertInto('payments')
    .values({ ...row, state: 'settling', transaction: null, error_reason: null, settled_at: null })
    .onConflict((oc) => oc.column('payment_id').doNothing())
    .returning('payment_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function markSettled(
  db: Kysely<Database>,
  paymentId: string,
  settled: { payer: string; transaction: string; settled_at: Date },
): Promise<void> {
  await db
    .updateTable('payments')
    .set({ state: 'settled', ...settled, error_reason: null })
    .where('payment_id', '=', paymentId)
    .execute();
}

export async function markUnsettled(
  db: Kysely<Database>,
  paymentId: string,
  state: 'pending' | 'failed',
  outcome: { transaction: string | null; error_reason: string },
): Promise<void> {
  await db
    .updateTable('payments')
    .set({ state, ...outcome })
    .where('payment_id', '=', paymentId)
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
