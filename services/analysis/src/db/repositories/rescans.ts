import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type RescanRow = Database['rescans'];

const COLUMNS = [
  'domain_id',
  'account_id',
  'tier',
  'enabled',
  'next_due_at',
  'last_run_id',
  'updated_at',
] as const;

/** Turns the weekly re-scan on (from `next_due_at`) or off; on again keeps a due time still ahead. */
export async function upsertRescan(db: Db, row: Omit<RescanRow, 'last_run_id'>): Promise<RescanRow> {
  return db
    .insertInto('rescans')
    .values({ ...row, last_run_id: null })
    .onConflict((oc) =>
      oc.column('domain_id').doUpdateSet((eb) => ({
        enabled: eb.ref('excluded.enabled'),
        tier: eb.ref('excluded.tier'),
        updated_at: eb.ref('excluded.updated_at'),
        next_due_at: eb
          .case()
          .when('rescans.next_due_at', '>', eb.ref('excluded.updated_at'))
          .then(eb.ref('rescans.next_due_at'))
          .else(eb.ref('excluded.next_due_at'))
          .end(),
      })),
    )
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function rescanOf(db: Db, domainId: string): Promise<RescanRow | undefined> {
  return db.selectFrom('rescans').select(COLUMNS).where('domain_id', '=', domainId).executeTakeFirst();
}

/**
 * One due re-scan, locked for this transaction; replicas skip rows another holds (SKIP LOCKED),
 * so each due week is taken by one replica.
 */
export async function takeDueRescan(trx: Transaction<Database>, now: Date): Promise<RescanRow | undefined> {
  return trx
    .selectFrom('rescans')
    .select(COLUMNS)
    .where('enabled', '=', true)
    .where('next_due_at', '<=', now)
    .orderBy('next_due_at', 'asc')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

export async function advanceRescan(
  trx: Transaction<Database>,
  domainId: string,
  nextDueAt: Date,
  runId: string | null,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('rescans')
    .set((eb) => ({
      next_due_at: nextDueAt,
      last_run_id: runId ?? eb.ref('last_run_id'),
      updated_at: now,
    }))
    .where('domain_id', '=', domainId)
    .execute();
}
