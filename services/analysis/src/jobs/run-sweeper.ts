import { startPeriodic } from '@meridian/runtime';
import { abandonedRuns, lapseQuotes, pendingRefunds } from '../db/repositories/runs.js';
import type { AnalysisDeps } from '../deps.js';
import { failRun, settleRefund } from '../flows/fail-run.js';
import { announceTrace } from '../flows/trace-stream.js';

/**
 * The safety net under the work queue, every RUN_SWEEP_MS, safe on every replica (each change is
 * one guarded statement): a run still `running` long after its lease ran out (its job was lost
 * with every delivery) is failed and refunded; refunds billing did not settle are asked again;
 * unpaid quotes older than RUN_QUOTE_HOURS lapse.
 */
export async function sweepRuns(deps: AnalysisDeps, now = new Date()): Promise<void> {
  const { RUN_ACK_WAIT_MS, RUN_MAX_ATTEMPTS, RUN_QUOTE_HOURS } = deps.config;
  // Past every redelivery the queue would still make (each after an ack wait, plus backoff).
  const graceMs = RUN_ACK_WAIT_MS * (RUN_MAX_ATTEMPTS + 4) + 60_000;
  const before = new Date(now.getTime() - graceMs);
  for (const run of await abandonedRuns(deps.db, now, graceMs))
    await failRun(deps, run, ['running'], 'worker_lost', now, true, before);
  for (const run of await pendingRefunds(deps.db)) await settleRefund(deps, run);
  const lapsed = await lapseQuotes(deps.db, new Date(now.getTime() - RUN_QUOTE_HOURS * 3_600_000), now);
  for (const runId of lapsed) await announceTrace(deps, runId);
  if (lapsed.length > 0) deps.logger.info({ runs: lapsed }, 'unpaid run quotes lapsed');
}

export function startRunSweeper(deps: AnalysisDeps): () => Promise<void> {
  const periodic = startPeriodic(
    () => sweepRuns(deps),
    deps.config.RUN_SWEEP_MS,
    (err) => deps.logger.error({ err }, 'sweeping runs failed'),
  );
  return () => periodic.stop();
}
