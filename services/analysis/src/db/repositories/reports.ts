import type { Kysely, Transaction } from 'kysely';
import type { Report } from '@meridian/contracts';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A run's report when `accountId` owns the run; undefined for a run of another account or none. */
export async function ownedReport(
  db: Db,
  runId: string,
  accountId: string,
): Promise<{ report: Report | null } | undefined> {
  return db
    .selectFrom('runs')
    .select('report')
    .where('id', '=', runId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A run's report, whoever owns it: only for a share link that was checked first. */
export async function reportOfRun(db: Db, runId: string): Promise<Report | null | undefined> {
  const row = await db.selectFrom('runs').select('report').where('id', '=', runId).executeTakeFirst();
  return row?.report;
}
