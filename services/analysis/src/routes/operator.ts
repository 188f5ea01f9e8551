import { Router } from 'express';
import { z } from 'zod';
import { envelope, httpProblem, operatorAccountOf, parseInput } from '@meridian/http-kit';
import { reportOfRun } from '../db/repositories/reports.js';
import { reviewQueue } from '../db/repositories/reviews.js';
import { findRun } from '../db/repositories/runs.js';
import { REVIEW_NOTE_MAX, reviewDueAt } from '../domain/review.js';
import type { AnalysisDeps } from '../deps.js';
import { recordReview } from '../flows/record-review.js';
import { valueOf } from './answer.js';
import { runIdSchema } from './schemas.js';

const method = "The analysis service's review queue of audit_review runs.";
const idPath = z.object({ id: runIdSchema });
const queueQuery = z
  .object({
    status: z.enum(['pending', 'done', 'all']).default('pending'),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
const reviewBody = z.object({ note: z.string().trim().min(1).max(REVIEW_NOTE_MAX) }).strict();

/**
 * The operator console's review queue: every route needs a session of an operator with TOTP
 * active (operatorAccountOf); recording a review is logged in `operator_actions`.
 */
export function operatorRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.get('/v1/operator/reviews', async (req, res) => {
    operatorAccountOf(req);
    const { status, limit } = parseInput(queueQuery, req.query, 'query');
    const now = Date.now();
    const rows = (await reviewQueue(deps.db, status, limit)).map((r) => {
      const due = r.finished_at ? reviewDueAt(r.finished_at) : null;
      return {
        run_id: r.id,
        account_id: r.account_id,
        domain: r.domain,
        finished_at: r.finished_at?.toISOString() ?? null,
        status: r.reviewed_at ? 'done' : 'pending',
        due_at: due?.toISOString() ?? null,
        overdue: !r.reviewed_at && due !== null && due.getTime() < now,
        refund: r.refund,
        author: r.author,
        reviewed_at: r.reviewed_at?.toISOString() ?? null,
      };
    });
    res.json(envelope(rows, { returned: rows.length }, { method }));
  });
  router.get('/v1/operator/reviews/:id', async (req, res) => {
    operatorAccountOf(req);
    const { id } = parseInput(idPath, req.params, 'path');
    const run = await findRun(deps.db, id);
    const report = run?.tier === 'audit_review' ? await reportOfRun(deps.db, id) : undefined;
    if (!run || !report) throw httpProblem('not_found', 'No finished run of the review tier has this id.');
    res.json(
      envelope({ run_id: id, account_id: run.account_id, refund: run.refund, report }, {}, { method }),
    );
  });
  router.post('/v1/operator/reviews/:id', async (req, res) => {
    const operator = operatorAccountOf(req);
    const { id } = parseInput(idPath, req.params, 'path');
    const { note } = parseInput(reviewBody, req.body ?? {});
    const recorded = valueOf(await recordReview(deps, { run_id: id, note, operator_account_id: operator }));
    res.status(201).json(envelope(recorded, {}, { method }));
  });
  return router;
}
