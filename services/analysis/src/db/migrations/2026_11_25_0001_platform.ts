import { sql, type Kysely } from 'kysely';

/**
 * Frozen. Domains and their verification, runs (the work queue's records, with their lease and
 * the finished report), trace events, active-testing authorizations, sealed audit credentials and
 * weekly re-scans.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('domains')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz')
    .addColumn('checked_at', 'timestamptz')
    .addUniqueConstraint('domains_account_hostname', ['account_id', 'hostname'])
    .execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('domain_id', 'uuid', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // 'subscription' | 'credit' | 'deposit'
    .addColumn('payment', 'text', (c) => c.notNull())
    .addColumn('amount_atomic', 'bigint', (c) => c.notNull())
    .addColumn('pay', 'jsonb')
    .addColumn('idempotency_key', 'text')
    // 'request' | 'rescan'
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('rescan_week', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('worker', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('error', 'text')
    // null | 'pending' | 'done' | 'operator'
    .addColumn('refund', 'text')
    .addColumn('report', 'jsonb')
    .execute();
  await sql`create unique index runs_idempotency on analysis.runs (account_id, idempotency_key)
    where idempotency_key is not null`.execute(db);
  await sql`create unique index runs_rescan_week on analysis.runs (domain_id, rescan_week)
    where rescan_week is not null`.execute(db);
  await db.schema.createIndex('runs_domain_idx').on('runs').columns(['domain_id', 'created_at']).execute();
  await db.schema.createIndex('runs_status_idx').on('runs').columns(['status', 'lease_until']).execute();

  await db.schema
    .createTable('trace_events')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('trace_events_pkey', ['run_id', 'seq'])
    .execute();

  await db.schema
    .createTable('authorizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('domain_id', 'uuid', (c) => c.notNull())
    .addColumn('attested_by', 'text', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('scope', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  // One live authorization per domain: a second authorize replaces the first (revoking it).
  await sql`create unique index authorizations_live on analysis.authorizations (domain_id)
    where revoked_at is null`.execute(db);

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('domain_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('login_url', 'text')
    // AES-256-GCM: v1.<iv>.<tag>.<ciphertext>, the account and credential ids bound as associated data.
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credentials_domain_idx').on('credentials').column('domain_id').execute();

  await db.schema
    .createTable('rescans')
    .addColumn('domain_id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('next_due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_run_id', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rescans_due_idx').on('rescans').column('next_due_at').execute();
}
