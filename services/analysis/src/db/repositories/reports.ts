import type { Kysely, Transaction } from 'kysely';
import type { Report } from '@meridian/contracts';
import { withReview } from '../../domain/review.js';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The report with its human review, when the run has finished. */
function reportWithReview(db: Db) {
  return db
    .selectFrom('runs')
    .leftJoin('reviews', 'reviews.run_id', 'runs.id')
    .select(['runs.report', 'reviews.note', 'reviews.author', 'reviews.reviewed_at']);
}

const readable = (row: {
  report: Report | null;
  note: string | null;
  author: string | null;
  reviewed_at: Date | null;
}): Report | null => (row.report ? withReview(row.report, row) : null);

/** A run's report when `accountId` owns the run; undefined for a run of another account or none. */
export async function ownedReport(
  db: Db,
  runId: string,
  accountId: string,
): Promise<{ report: Report | null } | undefined> {
  const row = await reportWithReview(db)
    .where('runs.id', '=', runId)
    .where('runs.account_id', '=', accountId)
    .executeTakeFirst();
  return row && { report: readable(row) };
}

/** A run's report, whoever owns it: only for a share link (or an operator) that was checked first. */
export async function reportOfRun(db: Db, runId: string): Promise<Report | null | undefined> {
  const row = await reportWithReview(db).where('runs.id', '=', runId).executeTakeFirst();
  return row && readable(row);
}
