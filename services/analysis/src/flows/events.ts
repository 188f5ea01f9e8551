import type { Kysely } from 'kysely';
import { newEvent, writeOutbox } from '@meridian/bus';
import { EVENTS, WORK } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { SERVICE } from '../deps.js';

/** Puts a run's job on the work queue, through the outbox of the transaction that queues the run. */
export async function enqueueRun(trx: Kysely<Database>, runId: string, attempt: number): Promise<void> {
  const event = newEvent(SERVICE, EVENTS.analysisRunRequested, { run_id: runId, attempt });
  await writeOutbox(trx, SERVICE, event, WORK.analysisRunRequested);
}
