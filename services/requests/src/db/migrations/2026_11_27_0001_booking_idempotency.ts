import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The `Idempotency-Key` a booking was asked with: one key names one booking of an account,
 * so a double-sent purchase books and pays once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bookings').addColumn('idempotency_key', 'text').execute();
  await db.schema
    .createIndex('bookings_idempotency_key')
    .on('bookings')
    .columns(['account_id', 'idempotency_key'])
    .unique()
    .where(sql.ref('idempotency_key'), 'is not', null)
    .execute();
}
