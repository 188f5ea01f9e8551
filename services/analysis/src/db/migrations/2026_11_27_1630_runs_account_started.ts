import type { Kysely } from 'kysely';

/**
 * Frozen. The work queue's turns ask when each account with a run queued was last served (the
 * latest started_at of its runs): one index lookup per account instead of a pass over its history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('runs_account_started_idx')
    .on('runs')
    .columns(['account_id', 'started_at'])
    .execute();
}
