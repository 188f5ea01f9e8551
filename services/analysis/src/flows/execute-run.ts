import { reportSchema, type AuditTier, type Report } from '@meridian/contracts';
import type { ConsumeContext } from '@meridian/bus';
import { activeAuthorization } from '../db/repositories/authorizations.js';
import { credentialsOf } from '../db/repositories/credentials.js';
import { domainById } from '../db/repositories/domains.js';
import { claimRun, moveRun, previousReport, renewLease, type RunRow } from '../db/repositories/runs.js';
import { appendTrace } from '../db/repositories/trace-events.js';
import { changesSince } from '../domain/changes.js';
import { open } from '@meridian/runtime';
import type { AnalysisDeps } from '../deps.js';
import { checkOwnership } from './domains.js';
import { enqueueRun } from './events.js';
import { failRun, settleRefund } from './fail-run.js';
import { undeliveredOf } from './refund-undelivered.js';
import { NothingReachable, type PipelineInput, type Trace } from './run-pipeline.js';
import { announceTrace } from './trace-stream.js';
import { yieldTurn } from './run-queue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One job of the work queue: claims the run (a fresh lease, one more attempt), runs the pipeline
 * while a heartbeat renews the lease, and stores the report. A job whose worker died comes back
 * after the queue's ack wait: the lease has run out by then and the next worker claims it. A run
 * past RUN_MAX_ATTEMPTS is failed and refunded. Finished runs acknowledge at once (idempotent).
 */
export async function executeRunJob(deps: AnalysisDeps, runId: string, _ctx?: ConsumeContext): Promise<void> {
  const leaseMs = deps.config.RUN_ACK_WAIT_MS;
  if (await yieldTurn(deps, runId)) return;
  for (;;) {
    const claim = await claimRun(deps.db, runId, deps.workerId, leaseMs, new Date());
    if (claim.kind === 'settled') return;
    if (claim.kind === 'leased') {
      // Another worker holds it (a duplicate job): wait for its lease to end or the run to finish.
      await sleep(Math.min(Math.max(claim.until.getTime() - Date.now(), 50) + 50, leaseMs));
      continue;
    }
    const run = claim.run;
    if (run.attempts > deps.config.RUN_MAX_ATTEMPTS) {
      await traceOf(deps, run.id)('run', 'failed', `given up after ${run.attempts - 1} attempts`);
      await failRun(deps, run, ['running'], 'attempts_exhausted');
      return;
    }
    return execute(deps, run);
  }
}

const isUnique = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * The run's trace writer. Events written at the same moment (a pipeline that does not await
 * them) take the next numbers in turn; a trace that cannot be written is logged, never thrown
 * into the pipeline.
 */
const traceOf =
  (deps: AnalysisDeps, runId: string): Trace =>
  async (stage, status, message) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        await appendTrace(deps.db, { run_id: runId, at: new Date(), stage, status, message });
        await announceTrace(deps, runId);
        return;
      } catch (err) {
        if (isUnique(err)) continue;
        deps.logger.warn({ err, run_id: runId, stage }, 'a trace event was not stored');
        return;
      }
    }
  };

class RunTimedOut extends Error {
  override name = 'RunTimedOut';
}

/** The pipeline's answer, or a RunTimedOut after RUN_TIMEOUT_MS (the attempt then counts as failed). */
async function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RunTimedOut(`the audit took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the attempt may take: RUN_TIMEOUT_MS, and no more than what is left of RUN_DEADLINE_MS
 * counted from the run's first start, so that retries cannot stretch a run past it.
 */
function timeLeft(deps: AnalysisDeps, run: RunRow): number {
  const startedAt = run.started_at?.getTime() ?? Date.now();
  return Math.min(deps.config.RUN_TIMEOUT_MS, startedAt + deps.config.RUN_DEADLINE_MS - Date.now());
}

/**
 * An attempt that threw: an unreachable target fails the run unrefunded; past RUN_DEADLINE_MS the
 * run fails (refunded); otherwise it goes back on the queue, or fails on its last attempt.
 */
async function afterFailure(
  deps: AnalysisDeps,
  run: RunRow,
  err: unknown,
  trace: Trace,
  isLost: () => boolean,
): Promise<void> {
  if (err instanceof NothingReachable) {
    // The target answered nothing (no public address, neither http nor https): not our
    // failure, so no retry and no refund (the trace says why).
    await trace('run', 'failed', `nothing to audit: ${err.message}`);
    if (!isLost()) await failRun(deps, run, ['running'], 'target_unreachable', new Date(), false);
    return;
  }
  deps.logger.error({ err, run_id: run.id, attempt: run.attempts }, 'pipeline failed');
  await trace(
    'run',
    'failed',
    err instanceof RunTimedOut
      ? `the audit timed out on attempt ${run.attempts}`
      : `the audit failed on attempt ${run.attempts}`,
  );
  if (isLost()) return;
  if (err instanceof RunTimedOut && timeLeft(deps, run) <= 0) {
    await failRun(deps, run, ['running'], 'run_timed_out');
    return;
  }
  if (run.attempts >= deps.config.RUN_MAX_ATTEMPTS) {
    await failRun(deps, run, ['running'], 'pipeline_failed');
    return;
  }
  await deps.db.transaction().execute(async (trx) => {
    const back = await moveRun(trx, run.id, ['running'], {
      status: 'queued',
      worker: null,
      lease_until: null,
      queued_at: new Date(),
    });
    if (back) await enqueueRun(trx, run.id, run.attempts + 1);
  });
}

async function execute(deps: AnalysisDeps, run: RunRow): Promise<void> {
  const { RUN_ACK_WAIT_MS: leaseMs, RUN_MAX_ATTEMPTS: max } = deps.config;
  const trace = traceOf(deps, run.id);
  let lost = false;
  const heartbeat = setInterval(
    () => {
      renewLease(deps.db, run.id, deps.workerId, new Date(Date.now() + leaseMs)).then(
        (mine) => {
          if (!mine) lost = true;
        },
        (err: unknown) => deps.logger.warn({ err, run_id: run.id }, 'lease renewal failed'),
      );
    },
    Math.max(Math.floor(leaseMs / 3), 100),
  );
  try {
    await trace('run', 'started', `attempt ${run.attempts} of ${max}`);
    const input = await inputOf(deps, run);
    if (!input.ok) {
      await trace('run', 'failed', input.detail);
      await failRun(deps, run, ['running'], input.code);
      return;
    }
    const left = timeLeft(deps, run);
    if (left <= 0) {
      await trace('run', 'failed', `the run took longer than ${deps.config.RUN_DEADLINE_MS} ms in all`);
      await failRun(deps, run, ['running'], 'run_timed_out');
      return;
    }
    let report: Report;
    try {
      report = reportSchema.parse(await withinTime(deps.pipeline(deps, input.value, trace), left));
    } catch (err) {
      await afterFailure(deps, run, err, trace, () => lost);
      return;
    }
    if (lost) return;
    await storeReport(deps, run, report, input.value.previous ?? null);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Stores the pipeline's report as the run's, with what changed since the previous one; a stage
 * that delivered nothing is refunded its part of the price (README: what a run delivers).
 */
async function storeReport(
  deps: AnalysisDeps,
  run: RunRow,
  report: Report,
  previous: Report | null,
): Promise<void> {
  const finishedAt = new Date();
  const final: Report = {
    ...report,
    run_id: run.id,
    domain: run.domain,
    tier: run.tier as AuditTier,
    status: 'succeeded',
    started_at: report.started_at ?? run.started_at?.toISOString() ?? null,
    finished_at: finishedAt.toISOString(),
    changes: report.changes ?? (previous ? changesSince(previous, report.findings) : null),
  };
  const undelivered = undeliveredOf(run, final);
  const owed = undelivered.length === 0 ? null : run.payment === 'credit' ? 'pending' : 'operator';
  const done = await finishRun(deps, run.id, final, finishedAt, owed);
  if (done?.refund === 'pending') await settleRefund(deps, done);
  if (done?.refund === 'operator')
    deps.logger.warn(
      { run_id: run.id, undelivered },
      'a run paid by deposit delivered less than its tier; an operator refunds the part (billing:admin grant)',
    );
}

/**
 * The run succeeded and its trace says so in one transaction: a reader that sees `succeeded` sees
 * `run:finished` too, and a crash between them cannot leave a finished run whose trace never ends.
 */
async function finishRun(
  deps: AnalysisDeps,
  runId: string,
  final: Report,
  finishedAt: Date,
  refund: 'pending' | 'operator' | null,
): Promise<RunRow | undefined> {
  const notRun = final.findings.filter((f) => f.outcome === 'not_run').length;
  const message = `grade ${final.grade ?? '-'}, ${final.findings.length} findings${notRun ? ` (${notRun} not run)` : ''}`;
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const finished = await deps.db.transaction().execute(async (trx) => {
        const done = await moveRun(trx, runId, ['running'], {
          status: 'succeeded',
          report: final as never,
          finished_at: finishedAt,
          lease_until: null,
          refund,
        });
        if (done)
          await appendTrace(trx, {
            run_id: runId,
            at: finishedAt,
            stage: 'run',
            status: 'finished',
            message,
          });
        return done;
      });
      await announceTrace(deps, runId);
      return finished;
    } catch (err) {
      // Another trace event took the same sequence number at once: the whole step again.
      if (!isUnique(err)) throw err;
    }
  }
  return undefined;
}

type Input = { ok: true; value: PipelineInput } | { ok: false; code: string; detail: string };

/** What the pipeline needs, gathered and re-checked at the start of every attempt. */
async function inputOf(deps: AnalysisDeps, run: RunRow): Promise<Input> {
  const now = new Date();
  const domain = await domainById(deps.db, run.domain_id);
  if (!domain) return { ok: false, code: 'domain_removed', detail: 'the domain is no longer in the account' };
  let authorization: PipelineInput['authorization'] = null;
  if (run.tier !== 'audit_base') {
    const active = await activeAuthorization(deps.db, domain.id, now);
    if (!active)
      return {
        ok: false,
        code: 'authorization_inactive',
        detail: 'the active-testing authorization was revoked or expired',
      };
    const proof = await checkOwnership(deps, domain, now);
    if (!proof.ok || !proof.value.found)
      return {
        ok: false,
        code: 'domain_not_verified',
        detail: 'the verification TXT record could not be found',
      };
    authorization = {
      scope: active.scope.entries,
      starts_at: active.created_at.toISOString(),
      ends_at: active.expires_at.toISOString(),
    };
  }
  // The pipeline signs in with the domain's first stored credential (opened for this attempt only).
  const [stored] = await credentialsOf(deps.db, run.account_id, domain.id);
  const credentials: PipelineInput['credentials'] = stored
    ? {
        username: stored.username ?? '',
        password: open(deps.credentialsKey, stored.secret_sealed, `${stored.account_id}:${stored.id}`),
        ...(stored.login_url ? { login_url: stored.login_url } : {}),
      }
    : null;
  const previousRun = await previousReport(deps.db, domain.id, run.id);
  const previous = previousRun ? reportSchema.safeParse(previousRun.report) : undefined;
  return {
    ok: true,
    value: {
      run_id: run.id,
      domain: run.domain,
      tier: run.tier as AuditTier,
      authorization,
      credentials,
      previous: previous?.success ? previous.data : null,
    },
  };
}
