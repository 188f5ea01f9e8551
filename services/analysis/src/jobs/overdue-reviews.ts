import { startPeriodic } from '@meridian/runtime';
import { markOverdue } from '../db/repositories/reviews.js';
import { findRun, moveRun } from '../db/repositories/runs.js';
import { REVIEW_PROMISE_HOURS } from '../domain/review.js';
import type { AnalysisDeps } from '../deps.js';
import { settleRefund } from '../flows/fail-run.js';

/**
 * Refunds every `audit_review` run whose review was not recorded within its promised time, once:
 * the run is marked overdue in one statement (a second replica or pass finds it marked), its
 * refund set as a failed run's is, and billing asked through the refund rule of every other
 * refund (one full refund per order); a refund billing does not settle now is asked again by the
 * run sweeper. Answers the runs marked in this pass.
 */
export async function refundOverdueReviews(deps: AnalysisDeps, now = new Date()): Promise<string[]> {
  const overdue = await markOverdue(deps.db, new Date(now.getTime() - REVIEW_PROMISE_HOURS * 3_600_000), now);
  for (const runId of overdue) {
    const run = await findRun(deps.db, runId);
    const payment = run?.payment;
    const owed = payment === 'credit' ? 'pending' : payment === 'deposit' ? 'operator' : null;
    const moved = owed ? await moveRun(deps.db, runId, ['succeeded'], { refund: owed }) : undefined;
    deps.logger.warn({ run_id: runId, refund: owed }, 'review overdue; the run is refunded');
    if (moved?.refund === 'pending') await settleRefund(deps, moved);
  }
  return overdue;
}

export function startOverdueReviews(deps: AnalysisDeps): () => Promise<void> {
  const periodic = startPeriodic(
    () => refundOverdueReviews(deps).then(() => undefined),
    deps.config.RUN_SWEEP_MS,
    (err) => deps.logger.error({ err }, 'refunding overdue reviews failed'),
  );
  return () => periodic.stop();
}
