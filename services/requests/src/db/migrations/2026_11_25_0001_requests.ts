import { sql, type Kysely } from 'kysely';

/** Frozen. Service requests (one row per account, domain and kind) and consulting bookings. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_requests')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    // '' when the request names no domain, so the unique key treats "none" as one value.
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('first_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('operator_note', 'text')
    .addColumn('reviewed_by', 'text')
    .addColumn('reviewed_at', 'timestamptz')
    .addUniqueConstraint('service_requests_identity', ['account_id', 'domain', 'kind'])
    .execute();
  await db.schema
    .createIndex('service_requests_status_idx')
    .on('service_requests')
    .columns(['status', 'last_at'])
    .execute();

  await db.schema
    .createTable('bookings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('starts_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ends_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('topic', 'text')
    .addColumn('payment', 'text', (c) => c.notNull())
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull())
    .addColumn('pay', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('confirmed_at', 'timestamptz')
    .execute();
  // A slot is held by one live booking at most, whatever the concurrency: the database refuses
  // an overlapping live booking; an expired or cancelled one frees its time.
  await sql`
    alter table requests.bookings add constraint bookings_no_overlap
    exclude using gist (tstzrange(starts_at, ends_at) with &&)
    where (status in ('awaiting_payment', 'confirmed'))`.execute(db);
  await db.schema
    .createIndex('bookings_account_idx')
    .on('bookings')
    .columns(['account_id', 'starts_at'])
    .execute();
  await db.schema
    .createIndex('bookings_awaiting_idx')
    .on('bookings')
    .column('expires_at')
    .where(sql.ref('status'), '=', 'awaiting_payment')
    .execute();
}
