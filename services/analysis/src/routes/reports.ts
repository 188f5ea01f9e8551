import type { Request, Response } from 'express';
import { Router } from 'express';
import { z } from 'zod';
import { refuse, shareBodySchema, type Refusal, type Report } from '@meridian/contracts';
import { envelope, httpProblem, parseInput, sessionAccountOf } from '@meridian/http-kit';
import { renderReportPdf } from '../adapters/report-pdf.js';
import { ownedReport } from '../db/repositories/reports.js';
import { REPORT_PAGE_CSP, noticePage, reportPage } from '../domain/report-html.js';
import type { AnalysisDeps } from '../deps.js';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { mintShareLink, readShared, revokeShareLink, type SharedRead } from '../flows/share-report.js';
import { analysisProblem, valueOf } from './answer.js';
import { runIdSchema } from './schemas.js';

const idPath = z.object({ id: runIdSchema });
const method = "The analysis service's record of the run, built by its pipeline.";

/** The caller's finished report, or the problem of why not (another account's run is a 404). */
async function finishedReport(deps: AnalysisDeps, req: Request): Promise<Report> {
  const accountId = sessionAccountOf(req);
  const { id } = parseInput(idPath, req.params, 'path');
  const owned = await ownedReport(deps.db, id, accountId);
  if (!owned) throw httpProblem('not_found', 'No report of yours has this id.');
  if (!owned.report) throw httpProblem('conflict', 'The run has not finished; follow its trace.');
  return owned.report;
}

async function sendPdf(res: Response, report: Report): Promise<void> {
  const pdf = await renderReportPdf(report);
  res
    .type('application/pdf')
    .set('Content-Disposition', `attachment; filename="audit-${report.domain}-${report.run_id}.pdf"`)
    .set('Cache-Control', 'private, no-store')
    .send(pdf);
}

/** What a share link that shows nothing says, by verdict (ANALYSIS_PROBLEMS gives each its problem). */
const SHARED_REFUSALS = {
  revoked: refuse('share_revoked', 'This share link was revoked.'),
  expired: refuse('share_expired', 'This share link has expired.'),
  not_found: refuse('not_found', 'No report is shared under this link.'),
  sign_in: refuse(
    'share_sign_in',
    'This report is shared with signed-in accounts; sign in and open the link again.',
  ),
  not_for_you: refuse(
    'share_not_for_you',
    'This report is shared with named people, and your account is not one of them.',
  ),
} satisfies Record<Exclude<SharedRead['verdict'], 'readable'>, Refusal<AnalysisRefusal>>;

/** Answers a share link that shows nothing: a plain page to a browser, a problem to a program. */
function refuseShared(
  req: Request,
  res: Response,
  verdict: Exclude<SharedRead['verdict'], 'readable'>,
): void {
  res.set('Cache-Control', 'no-store').set('Referrer-Policy', 'no-referrer');
  const problem = analysisProblem(SHARED_REFUSALS[verdict]);
  if (req.accepts(['application/json', 'text/html']) === 'text/html') {
    res
      .status(problem.body.status)
      .set('Content-Security-Policy', REPORT_PAGE_CSP)
      .type('html')
      .send(noticePage(verdict));
    return;
  }
  throw problem;
}

/**
 * Report routes (portal 4.3): the owner's report and PDF, the share link's mint and revoke, and
 * the shared report read with the token as its only credential, as JSON, a web page or a PDF.
 */
export function reportRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.get('/v1/analysis/report/:id', async (req, res) => {
    res.json(envelope(await finishedReport(deps, req), {}, { method }));
  });
  router.get('/v1/analysis/report/:id/pdf', async (req, res) =>
    sendPdf(res, await finishedReport(deps, req)),
  );
  router.post('/v1/analysis/report/:id/share', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseInput(idPath, req.params, 'path');
    const body = parseInput(shareBodySchema, req.body ?? {});
    const audience =
      body.audience === 'emails'
        ? { kind: 'emails' as const, emails: body.emails!.map((e) => e.toLowerCase()) }
        : { kind: body.audience };
    const minted = valueOf(
      await mintShareLink(deps, accountId, id, {
        audience,
        expires_at: body.expires_at ? new Date(body.expires_at) : null,
      }),
    );
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json(envelope(minted, {}, { method }));
  });
  router.delete('/v1/analysis/report/:id/share', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseInput(idPath, req.params, 'path');
    res.json(envelope(valueOf(await revokeShareLink(deps, accountId, id)), {}, { method }));
  });
  const shared = async (req: Request) =>
    readShared(deps, String(req.params.id), req.caller?.account_id ?? null);
  router.get('/v1/analysis/shared/:id', async (req, res) => {
    const read = await shared(req);
    if (read.verdict !== 'readable') return refuseShared(req, res, read.verdict);
    res.set('Cache-Control', 'private, no-store').set('Referrer-Policy', 'no-referrer');
    if (req.accepts(['application/json', 'text/html']) === 'text/html')
      return res
        .set('Content-Security-Policy', REPORT_PAGE_CSP)
        .type('html')
        .send(reportPage(read.report, `${req.params.id}/pdf`));
    res.json(envelope(read.report, {}, { method }));
  });
  router.get('/v1/analysis/shared/:id/pdf', async (req, res) => {
    const read = await shared(req);
    if (read.verdict !== 'readable') return refuseShared(req, res, read.verdict);
    await sendPdf(res, read.report);
  });
  return router;
}
