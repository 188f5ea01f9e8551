import type { Finding, Report } from '@meridian/contracts';
import { notRun } from '../domain/checks/finding.js';
import { TIER_STAGES, type StageName } from '../domain/delivery.js';
import { scoreAreas, scoreFindings } from '../domain/grade.js';
import { changesSince, ordered, summarize } from '../domain/report.js';
import { activeStage } from './pipeline/active.js';
import {
  describe,
  NothingReachable,
  stageContext,
  type PipelineDeps,
  type PipelineInput,
  type Stage,
  type StageContext,
  type Trace,
} from './pipeline/context.js';
import { contentStage } from './pipeline/content.js';
import { cookiesStage } from './pipeline/cookies.js';
import { dnsStage, mailStage } from './pipeline/dns.js';
import { filesStage } from './pipeline/files.js';
import { headersStage } from './pipeline/headers.js';
import { httpStage } from './pipeline/http.js';
import { reviewStage } from './pipeline/review.js';
import { tlsStage } from './pipeline/tls.js';

export { NothingReachable };
export type { PipelineInput, Trace } from './pipeline/context.js';

/** The audit a worker runs (runPipeline in production; tests put a stand-in in the deps). */
export type RunPipeline = (deps: PipelineDeps, input: PipelineInput, trace: Trace) => Promise<Report>;

const STAGES: Record<StageName, Stage> = {
  dns: dnsStage,
  mail: mailStage,
  tls: tlsStage,
  http: httpStage,
  headers: headersStage,
  cookies: cookiesStage,
  files: filesStage,
  content: contentStage,
  active: activeStage,
  review: reviewStage,
};

/**
 * One stage, traced `started` then `finished` (some check ran) or `failed` (none did, with why).
 * A stage that throws becomes a `<stage>.stage-failed` not-run finding and the run goes on;
 * NothingReachable ends the run.
 */
async function runStage(ctx: StageContext, stage: Stage): Promise<Finding[]> {
  const { name } = stage;
  await ctx.trace(name, 'started', `${name} checks started`);
  let found: Finding[];
  try {
    found = await stage.run(ctx);
  } catch (err) {
    if (err instanceof NothingReachable) {
      await ctx.trace('pipeline', 'failed', `nothing could be reached: ${err.message}`);
      throw err;
    }
    const message = describe(err);
    await ctx.trace(name, 'failed', message);
    return [
      notRun(
        `${name}.stage-failed`,
        name,
        `The ${name} checks could not run`,
        message,
        'Make sure the site answers from the public internet, then run the audit again.',
      ),
    ];
  }
  const skipped = found.filter((f) => f.outcome === 'not_run');
  const ran = found.length - skipped.length;
  if (ran === 0)
    await ctx.trace(
      name,
      'failed',
      `not run: ${skipped.map((f) => f.evidence).join('; ') || 'no check ran'}`,
    );
  else {
    const problems = found.filter((f) => f.outcome === 'problem').length;
    const notRunNote = skipped.length ? `, ${skipped.length} not run` : '';
    await ctx.trace(name, 'finished', `${ran} checks, ${problems} problems${notRunNote}`);
  }
  return found;
}

/**
 * Runs the stages the tier buys, in order, and builds the report. Each stage lives in
 * ./pipeline/; what they learn of the site (the schemes it answers, the page, the session) is
 * shared through the stage context.
 */
export async function runPipeline(deps: PipelineDeps, input: PipelineInput, trace: Trace): Promise<Report> {
  const ctx = stageContext(deps, input, trace);
  const started_at = ctx.now().toISOString();
  const findings: Finding[] = [];
  for (const name of TIER_STAGES[input.tier]) findings.push(...(await runStage(ctx, STAGES[name])));
  const { score, grade } = scoreFindings(findings);
  const sorted = ordered(findings);
  await trace(
    'pipeline',
    'finished',
    grade ? `grade ${grade}, score ${score}` : 'not graded: the home page is an error page',
  );
  return {
    run_id: input.run_id,
    domain: ctx.domain,
    tier: input.tier,
    status: 'succeeded',
    started_at,
    finished_at: ctx.now().toISOString(),
    score,
    grade,
    areas: scoreAreas(findings),
    summary: summarize(ctx.domain, score, grade, sorted),
    findings: sorted,
    changes: changesSince(input.previous, sorted),
    review: input.tier === 'audit_review' ? { status: 'pending', note: null, reviewed_at: null } : null,
  };
}
