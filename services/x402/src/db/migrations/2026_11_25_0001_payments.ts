import { sql, type Kysely } from 'kysely';

/**
 * Frozen. One row per payment, keyed by the hash of its transaction message: written (state
 * `settling`) before the facilitator is asked to settle, so a payment is settled at most once
 * across every replica; then `settled` with its signature, or `pending`/`failed`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payments')
    .addColumn('payment_id', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('settling', 'settled', 'pending', 'failed')`),
    )
    .addColumn('payer', 'text')
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull().check(sql`amount_atomic > 0`))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('pay_to', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('transaction', 'text')
    .addColumn('error_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('payments_settled_at_idx')
    .on('payments')
    .column('settled_at')
    .where(sql.ref('state'), '=', 'settled')
    .execute();
}
