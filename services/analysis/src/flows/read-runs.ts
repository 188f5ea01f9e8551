import { ok, refuse, traceEventSchema, type Result, type TraceEvent } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { runOf, runsOfDomain, type RunRow } from '../db/repositories/runs.js';
import { traceOf, type TraceRow } from '../db/repositories/trace-events.js';
import type { AnalysisDeps } from '../deps.js';
import { ownDomain } from './domains.js';

export const TERMINAL = new Set(['succeeded', 'failed']);

/** A run as its owner sees it in lists and answers. */
export function runView(run: RunRow) {
  const report = run.report as { grade?: string | null; score?: number | null } | null;
  return {
    id: run.id,
    domain: run.domain,
    tier: run.tier,
    status: run.status,
    origin: run.origin,
    payment: run.payment,
    amount_atomic: run.amount_atomic,
    pay: run.pay,
    attempts: run.attempts,
    created_at: run.created_at.toISOString(),
    queued_at: run.queued_at?.toISOString() ?? null,
    started_at: run.started_at?.toISOString() ?? null,
    finished_at: run.finished_at?.toISOString() ?? null,
    error: run.error,
    refund: run.refund,
    refund_atomic: run.refund_atomic,
    grade: report?.grade ?? null,
    score: report?.score ?? null,
    links: {
      report: `/v1/analysis/report/${run.id}`,
      trace: `/v1/analysis/report/${run.id}/trace`,
    },
  };
}

export const MAX_RUNS_LISTED = 100;

export async function runsOf(deps: AnalysisDeps, accountId: string, domain: string) {
  const owned = await ownDomain(deps, accountId, domain);
  if (!owned.ok) return owned;
  return ok((await runsOfDomain(deps.db, owned.value.id, MAX_RUNS_LISTED)).map(runView));
}

export async function ownRun(
  deps: AnalysisDeps,
  accountId: string,
  id: string,
): Promise<Result<RunRow, AnalysisRefusal>> {
  const run = await runOf(deps.db, accountId, id);
  return run ? ok(run) : refuse('not_found', `No run ${id} in this account.`);
}

export const traceEvent = (row: TraceRow): TraceEvent =>
  traceEventSchema.parse({
    seq: row.seq,
    at: row.at.toISOString(),
    stage: row.stage,
    status: row.status,
    message: row.message,
  });

export const traceAfter = async (deps: AnalysisDeps, runId: string, afterSeq: number) =>
  (await traceOf(deps.db, runId, afterSeq)).map(traceEvent);
