import { newEvent, writeOutbox } from '@meridian/bus';
import {
  EVENTS,
  RPC,
  ok,
  publicReviewer,
  refuse,
  type AccountEmailReply,
  type Result,
  type ReviewRecorded,
} from '@meridian/contracts';
import { insertOperatorAction, insertReview } from '../db/repositories/reviews.js';
import { findRun } from '../db/repositories/runs.js';
import type { AnalysisDeps } from '../deps.js';
import { SERVICE } from '../deps.js';

type Refused = 'not_found' | 'conflict' | 'service_unavailable';

/**
 * How the review names its author: the public nickname, else "a Meridian reviewer". Never the
 * email: the review shows on shared pages, in PDFs and in the owner's mail.
 */
async function authorName(deps: AnalysisDeps, accountId: string): Promise<string | undefined> {
  const reply = await deps.bus.request<AccountEmailReply>(RPC.identityAccountEmail, {
    account_id: accountId,
  });
  if (!reply.ok) return undefined;
  return publicReviewer(reply.data.nickname);
}

/**
 * An operator records the human review of a finished `audit_review` run, once. In one
 * transaction: the review, the operator's action in the append-only log, and the event on which
 * identity mails the run's owner.
 */
export async function recordReview(
  deps: AnalysisDeps,
  input: { run_id: string; note: string; operator_account_id: string },
  now = new Date(),
): Promise<Result<ReviewRecorded, Refused>> {
  const run = await findRun(deps.db, input.run_id);
  if (!run || run.tier !== 'audit_review')
    return refuse('not_found', 'No run of the review tier has this id.');
  if (run.status !== 'succeeded')
    return refuse('conflict', 'The run has not finished; it has no report to review.');
  const author = await authorName(deps, input.operator_account_id);
  if (!author)
    return refuse('service_unavailable', 'The author of the review could not be named; retry shortly.');
  const recorded: ReviewRecorded = {
    run_id: run.id,
    account_id: run.account_id,
    domain: run.domain,
    author,
    reviewed_at: now.toISOString(),
  };
  return deps.db.transaction().execute(async (trx): Promise<Result<ReviewRecorded, Refused>> => {
    const inserted = await insertReview(trx, {
      run_id: run.id,
      note: input.note,
      author_account_id: input.operator_account_id,
      author,
      reviewed_at: now,
    });
    if (!inserted) return refuse('conflict', 'This run was reviewed already.');
    await insertOperatorAction(trx, {
      at: now,
      actor: `operator:${input.operator_account_id}`,
      action: 'review.record',
      target: `run:${run.id}`,
      reason: input.note,
    });
    await writeOutbox(trx, SERVICE, newEvent(SERVICE, EVENTS.analysisReviewRecorded, recorded));
    return ok(recorded);
  });
}
