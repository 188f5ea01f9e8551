import { Router, type Request, type Response } from 'express';
import { analysisDomainQuerySchema, analysisRunBodySchema } from '@meridian/contracts';
import { envelope, idempotencyKeyOf, parseInput, parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import { commissionRun } from '../flows/commission-run.js';
import { readEntitlement } from '../flows/entitlement.js';
import { TERMINAL, ownRun, runView, runsOf, traceAfter } from '../flows/read-runs.js';
import { findRun } from '../db/repositories/runs.js';
import { METHOD, valueOf } from './answer.js';
import { runIdSchema } from './schemas.js';

const POLL_MS = 500;
const KEEPALIVE_MS = 15_000;

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
    const accountId = sessionAccountOf(req);
    const id = parseInput(runIdSchema, req.params.id, 'path.id');
    const run = valueOf(await ownRun(deps, accountId, id));
    if ((req.get('accept') ?? '').includes('text/event-stream')) return streamTrace(deps, req, res, run.id);
    res.json(envelope(await traceAfter(deps, run.id, 0), { run_status: run.status }, { method: METHOD }));
  });
  return router;
}

/**
 * Server-sent events: every stored event (`event: trace`, `id:` its seq, so a reconnect with
 * Last-Event-ID resumes after it), then new ones as they are stored (polled every 500 ms), then
 * `event: end` with the run's final status, and the stream closes.
 */
async function streamTrace(deps: AnalysisDeps, req: Request, res: Response, runId: string): Promise<void> {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let closed = false;
  req.on('close', () => {
    closed = true;
  });
  const resume = Number.parseInt(req.get('last-event-id') ?? '0', 10);
  let seq = Number.isFinite(resume) && resume > 0 ? resume : 0;
  let lastWrite = Date.now();
  while (!closed) {
    const run = await findRun(deps.db, runId);
    for (const event of await traceAfter(deps, runId, seq)) {
      res.write(`id: ${event.seq}\nevent: trace\ndata: ${JSON.stringify(event)}\n\n`);
      seq = event.seq;
      lastWrite = Date.now();
    }
    if (!run || TERMINAL.has(run.status)) {
      res.write(
        `event: end\ndata: ${JSON.stringify({ run_id: runId, status: run?.status ?? 'failed' })}\n\n`,
      );
      break;
    }
    if (Date.now() - lastWrite > KEEPALIVE_MS) {
      res.write(': keep-alive\n\n');
      lastWrite = Date.now();
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  res.end();
}
