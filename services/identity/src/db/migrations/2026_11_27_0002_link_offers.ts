import { sql, type Kysely } from 'kysely';

/**
 * Frozen. A provider identity waiting for the consent of the account its verified email names:
 * the owner is mailed a link (its token kept as SHA-256), and only that link makes the link.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_link_offers')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
