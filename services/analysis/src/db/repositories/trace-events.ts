import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type TraceRow = Database['trace_events'];

/** Appends an event with the run's next sequence number (one writer per run at a time: its lease). */
export async function appendTrace(db: Db, row: Omit<TraceRow, 'seq'>): Promise<TraceRow> {
  return db
    .insertInto('trace_events')
    .values({
      ...row,
      seq: sql<number>`(select coalesce(max(seq), 0) + 1 from analysis.trace_events where run_id = ${row.run_id})`,
    })
    .returning(['run_id', 'seq', 'at', 'stage', 'status', 'message'])
    .executeTakeFirstOrThrow();
}

export async function traceOf(db: Db, runId: string, afterSeq = 0): Promise<TraceRow[]> {
  return db
    .selectFrom('trace_events')
    .select(['run_id', 'seq', 'at', 'stage', 'status', 'message'])
    .where('run_id', '=', runId)
    .where('seq', '>', afterSeq)
    .orderBy('seq', 'asc')
    .execute();
}

/** NOTIFY every replica that the run's trace or status changed (the payload is the run id). */
export async function notifyTrace(db: Db, channel: string, runId: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${runId})`.execute(db);
}
