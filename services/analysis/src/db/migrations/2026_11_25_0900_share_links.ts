import { sql, type Kysely } from 'kysely';

/** Frozen. Share links of reports: the token's hash, its audience, expiry and revocation. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('share_links')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull())
    .addColumn('audience', 'jsonb', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // One live link per report: minting another revokes the one before.
  await db.schema
    .createIndex('share_links_live_idx')
    .on('share_links')
    .column('run_id')
    .unique()
    .where(sql.ref('revoked_at'), 'is', null)
    .execute();
}
