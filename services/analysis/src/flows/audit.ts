import type { Report } from '@meridian/contracts';
import type { AnalysisDeps } from '../deps.js';
import type { PipelineInput as RunInput, Trace } from './pipeline-types.js';
import { runPipeline, type PipelineInput } from './run-pipeline.js';

/**
 * What the pipeline is given for a run: the authorization's paths and window as its scope, and
 * the domain's form credentials (the kind the pipeline signs in with) as its login.
 */
export function pipelineInputOf(run: RunInput, now: Date): PipelineInput {
  const form = run.credentials.find((c) => c.kind === 'form' && c.username);
  return {
    run_id: run.run_id,
    domain: run.domain,
    tier: run.tier,
    authorization: run.authorization
      ? {
          scope: run.authorization.scope.paths,
          starts_at: now.toISOString(),
          ends_at: run.authorization.expires_at,
        }
      : null,
    credentials: form
      ? {
          username: form.username!,
          password: form.secret,
          ...(form.login_url ? { login_url: form.login_url } : {}),
        }
      : null,
    previous: run.previous,
  };
}

/** The worker's pipeline: the audit of one run, traced. */
export function audit(deps: AnalysisDeps, run: RunInput, trace: Trace): Promise<Report> {
  return runPipeline(deps, pipelineInputOf(run, new Date()), trace);
}
