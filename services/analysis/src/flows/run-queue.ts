import { queuedBehindOthers } from '../db/repositories/runs.js';
import type { AnalysisDeps } from '../deps.js';
import { enqueueRun } from './events.js';

/**
 * Turns on the shared work queue go round the accounts: a job whose account was served more
 * recently than another account with a run queued goes to the back of the queue (a fresh job in
 * the same transaction, the delivered one acknowledged), so one account's many runs on a stalling
 * site hold up another account's run by one slot at most. True when the job went to the back.
 */
export async function yieldTurn(deps: AnalysisDeps, runId: string): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const run = await queuedBehindOthers(trx, runId);
    if (!run) return false;
    await enqueueRun(trx, run.id, run.attempts + 1);
    deps.logger.debug(
      { run_id: run.id },
      'another account waits longer: the run goes to the back of the queue',
    );
    return true;
  });
}
