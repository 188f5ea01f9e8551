import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The credit ledger and everything that moves money: prices, balances, orders, on-chain
 * deposits, the deposit watcher's cursor and subscription periods.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('prices')
    .addColumn('item', 'text', (c) => c.primaryKey())
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull().check(sql`amount_atomic >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // One row per account, updated in the same transaction as each entry: the balance a spend checks.
  await db.schema
    .createTable('balances')
    .addColumn('account_id', 'uuid', (c) => c.primaryKey())
    .addColumn('balance_atomic', 'bigint', (c) => c.notNull().check(sql`balance_atomic >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('delta_atomic', 'bigint', (c) => c.notNull().check(sql`delta_atomic <> 0`))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('tx_signature', 'text')
    .addColumn('corrects_id', 'bigint', (c) => c.references('ledger_entries.id'))
    .addUniqueConstraint('ledger_entries_idempotency_key', ['account_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('ledger_entries_account_idx')
    .on('ledger_entries')
    .columns(['account_id', 'id desc'])
    .execute();
  await db.schema
    .createIndex('ledger_entries_order_idx')
    .on('ledger_entries')
    .column('order_id')
    .where(sql.ref('order_id'), 'is not', null)
    .execute();
  // Append-only: the database itself refuses to change or remove an entry; corrections are new entries.
  await sql`
    create function billing.refuse_ledger_change() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger entries are append-only (% refused)', tg_op using errcode = 'P0001';
    end $$`.execute(db);
  await sql`
    create trigger ledger_entries_append_only before update or delete on billing.ledger_entries
    for each row execute function billing.refuse_ledger_change()`.execute(db);
  await sql`
    create trigger ledger_entries_no_truncate before truncate on billing.ledger_entries
    for each statement execute function billing.refuse_ledger_change()`.execute(db);

  // Orders of other services (analysis runs, consulting bookings) that can be paid by deposit.
  await db.schema
    .createTable('orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('paid_at', 'timestamptz')
    .addColumn('paid_by', 'text')
    .execute();

  await db.schema
    .createTable('deposits')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('tx_signature', 'text', (c) => c.notNull().unique())
    .addColumn('slot', 'bigint', (c) => c.notNull())
    .addColumn('block_time', 'timestamptz')
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'uuid')
    .addColumn('order_id', 'text')
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deposits_account_idx')
    .on('deposits')
    .columns(['account_id', 'id desc'])
    .where(sql.ref('kind'), '=', 'order_payment')
    .execute();

  await db.schema
    .createTable('watcher_cursors')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('last_signature', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  // One row per paid period; the current subscription is the period that covers now.
  await db.schema
    .createTable('subscription_periods')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('product', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ledger_entry_id', 'bigint', (c) => c.notNull().references('ledger_entries.id'))
    .addColumn('lapse_announced_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('subscription_periods_account_idx')
    .on('subscription_periods')
    .columns(['account_id', 'product', 'expires_at desc'])
    .execute();
}
