import { sql, type Kysely } from 'kysely';

/**
 * Frozen. Where an account signed in from before: browsers (the hash of the device cookie's
 * token; one browser may be known to several accounts) and client addresses. An attempt from
 * either is held back by its own counters, not by the email-wide lock others can cause.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('known_devices')
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_signed_in_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_devices_pkey', ['account_id', 'token_hash'])
    .execute();
  await db.schema
    .createTable('known_addresses')
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('last_signed_in_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_addresses_pkey', ['account_id', 'address'])
    .execute();
}
