import { sql, type Kysely } from 'kysely';

/**
 * Frozen. A relay leases the mails it is about to send (owner, until), so two replicas never send
 * the same mail, and a replica that died holding some loses them when the lease runs out.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mail_outbox')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .column('seq')
    .where(sql.ref('sent_at'), 'is', null)
    .execute();
}
