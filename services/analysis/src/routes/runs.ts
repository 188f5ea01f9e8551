import { Router, type Request, type Response } from 'express';
import { analysisDomainQuerySchema, analysisRunBodySchema } from '@meridian/contracts';
import { envelope, idempotencyKeyOf, parseInput, parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import { commissionRun } from '../flows/commission-run.js';
import { readEntitlement } from '../flows/entitlement.js';
import { ownRun, runView, runsOf, traceAfter } from '../flows/read-runs.js';
import { openTraceStream, type TraceSink } from '../flows/trace-stream.js';
import { METHOD, valueOf } from './answer.js';
import { runIdSchema } from './schemas.js';

/** Entitlement, commissioning runs, listing them and their live trace (portal 4.3). */
export function runRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.get('/v1/analysis/entitlement', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.json(
      envelope(
        valueOf(await readEntitlement(deps, accountId)),
        {},
        { method: "Billing's subscription and price table." },
      ),
    );
  });
  router.post('/v1/analysis/run', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(analysisRunBodySchema, req.body);
    const key = idempotencyKeyOf(req.get('idempotency-key'));
    const { run, replayed } = valueOf(await commissionRun(deps, accountId, body, key));
    if (replayed) res.set('Idempotent-Replayed', 'true');
    res.status(replayed ? 200 : 201).json(envelope(runView(run), {}, { method: METHOD }));
  });
  router.get('/v1/analysis/reports', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(analysisDomainQuerySchema, req.query);
    res.json(envelope(valueOf(await runsOf(deps, accountId, query.domain)), {}, { method: METHOD }));
  });
  router.get('/v1/analysis/report/:id/trace', async (req, res) => {
    // Listened for before the first await: a client that leaves during the lookup opens nothing.
    let left = false;
    res.once('close', () => {
      left = true;
    });
    const accountId = sessionAccountOf(req);
    const id = parseInput(runIdSchema, req.params.id, 'path.id');
    const run = valueOf(await ownRun(deps, accountId, id));
    if (!(req.get('accept') ?? '').includes('text/event-stream')) {
      res.json(envelope(await traceAfter(deps, run.id, 0), { run_status: run.status }, { method: METHOD }));
      return;
    }
    if (left || req.socket.destroyed) return;
    const stream = valueOf(openTraceStream(deps, accountId, run, resumeAfter(req), sinkOf(res)));
    res.once('close', () => stream.close());
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    stream.start();
  });
  return router;
}

/** Last-Event-ID: the seq of the last event the client has (a reconnect resumes after it). */
function resumeAfter(req: Request): number {
  const resume = Number.parseInt(req.get('last-event-id') ?? '0', 10);
  return Number.isFinite(resume) && resume > 0 ? resume : 0;
}

const sinkOf = (res: Response): TraceSink => ({
  write: (chunk) => void res.write(chunk),
  end: () => void res.end(),
});
