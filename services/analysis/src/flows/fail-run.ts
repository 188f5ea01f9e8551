import { RPC, type PostingReply } from '@meridian/contracts';
import { moveRun, type RunRow } from '../db/repositories/runs.js';
import type { AnalysisDeps } from '../deps.js';
import { refundParts } from './refund-undelivered.js';
import { announceTrace } from './trace-stream.js';

/**
 * Fails a run for our reasons (the pipeline kept failing, its workers kept dying, the domain lost
 * its proof before an active test) and gives back what it cost: credit through billing's refund
 * (one full refund per order, so a retry never refunds twice); a run paid by a deposit is marked
 * for an operator (billing refunds spends only); a covered run cost nothing.
 */
export async function failRun(
  deps: AnalysisDeps,
  run: RunRow,
  from: readonly string[],
  error: string,
  now = new Date(),
  /** false: the run failed for the target's reasons (unreachable); nothing is given back. */
  ours = true,
  /** The sweeper's guard: only a run whose lease ended before this (no worker took it meanwhile). */
  leaseBefore?: Date,
): Promise<RunRow | undefined> {
  const owed = run.payment === 'credit' ? 'pending' : run.payment === 'deposit' ? 'operator' : null;
  const failed = await moveRun(
    deps.db,
    run.id,
    from,
    { status: 'failed', error, finished_at: now, lease_until: null, refund: ours ? owed : null },
    leaseBefore,
  );
  if (!failed) return undefined;
  await announceTrace(deps, run.id);
  deps.logger.warn({ run_id: run.id, error }, 'run failed');
  if (failed.refund === 'operator')
    deps.logger.warn(
      { run_id: run.id },
      'a run paid by deposit failed; an operator refunds it (billing:admin grant)',
    );
  if (failed.refund === 'pending') await settleRefund(deps, failed);
  return failed;
}

/**
 * Asks billing for what a run owes back: a failed run its whole price (one full refund per order);
 * a succeeded run each part its undelivered stages or its overdue review stand for, each under its
 * own refund key, so asking again never refunds a part twice. It stays pending (the sweeper asks
 * again) while billing is silent.
 */
export async function settleRefund(deps: AnalysisDeps, run: RunRow): Promise<boolean> {
  const parts = run.status === 'succeeded' ? await refundParts(deps, run) : [undefined];
  if (parts === null) return false;
  let refundedAtomic = 0;
  for (const part of parts) {
    const refunded = await deps.bus.request<PostingReply>(RPC.billingCreditRefund, {
      account_id: run.account_id,
      order_id: run.id,
      actor: 'service',
      ...(part ? { amount_atomic: part.amount_atomic, idempotency_key: part.key } : {}),
    });
    // 404: nothing was spent (never charged); 409: nothing is left to refund (refunded already).
    const settled = refunded.ok || refunded.problem.status === 404 || refunded.problem.status === 409;
    if (!settled) {
      deps.logger.warn({ run_id: run.id, status: refunded.problem.status }, 'refund not settled; will retry');
      return false;
    }
    if (refunded.ok) refundedAtomic += Math.abs(refunded.data.amount_atomic);
  }
  await deps.db
    .updateTable('runs')
    .set(
      parts.length === 0
        ? { refund: null }
        : { refund: 'done', refund_atomic: refundedAtomic > 0 ? refundedAtomic : null },
    )
    .where('id', '=', run.id)
    .execute();
  return true;
}
