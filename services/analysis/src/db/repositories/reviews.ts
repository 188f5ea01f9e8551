import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.js';

/** The operator log's one writer, shared by every service that keeps the table. */
export { insertOperatorAction } from '@meridian/db';

type Db = Kysely<Database> | Transaction<Database>;

export type QueueFilter = 'pending' | 'done' | 'all';

/** Finished runs of the review tier with their review, the oldest first (the next one due). */
export async function reviewQueue(db: Db, filter: QueueFilter, limit: number) {
  let query = db
    .selectFrom('runs')
    .leftJoin('reviews', 'reviews.run_id', 'runs.id')
    .select([
      'runs.id',
      'runs.account_id',
      'runs.domain',
      'runs.finished_at',
      'runs.payment',
      'runs.refund',
      'reviews.author',
      'reviews.reviewed_at',
      'reviews.overdue_at',
    ])
    .where('runs.tier', '=', 'audit_review')
    .where('runs.status', '=', 'succeeded');
  if (filter === 'pending') query = query.where('reviews.reviewed_at', 'is', null);
  if (filter === 'done') query = query.where('reviews.reviewed_at', 'is not', null);
  return query.orderBy('runs.finished_at').orderBy('runs.id').limit(limit).execute();
}

/** Records the review of a run once; false when one was recorded already. */
export async function insertReview(
  db: Db,
  row: { run_id: string; note: string; author_account_id: string; author: string; reviewed_at: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('reviews')
    .values(row)
    // A run marked overdue can still get its review; it stays refunded.
    .onConflict((oc) =>
      oc
        .column('run_id')
        .doUpdateSet({
          note: row.note,
          author_account_id: row.author_account_id,
          author: row.author,
          reviewed_at: row.reviewed_at,
        })
        .where('reviews.reviewed_at', 'is', null),
    )
    .returning('run_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Marks the review-tier runs finished before `finishedBefore` that have no review as overdue, each
 * once (the primary key): answers the ids marked now.
 */
export async function markOverdue(db: Db, finishedBefore: Date, now: Date): Promise<string[]> {
  const rows = await db
    .insertInto('reviews')
    .columns(['run_id', 'overdue_at'])
    .expression((eb) =>
      eb
        .selectFrom('runs')
        .select(['runs.id', sql<Date>`cast(${now.toISOString()} as timestamptz)`.as('overdue_at')])
        .where('runs.tier', '=', 'audit_review')
        .where('runs.status', '=', 'succeeded')
        .where('runs.finished_at', '<', finishedBefore)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(selectFrom('reviews').select('reviews.run_id').whereRef('reviews.run_id', '=', 'runs.id')),
          ),
        )
        .limit(100),
    )
    .onConflict((oc) => oc.column('run_id').doNothing())
    .returning('run_id')
    .execute();
  return rows.map((r) => r.run_id);
}

/** Whether the run's review was marked overdue (its part is refunded, whatever came after). */
export async function reviewOverdue(db: Db, runId: string): Promise<boolean> {
  const row = await db
    .selectFrom('reviews')
    .select('overdue_at')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return row?.overdue_at != null;
}
