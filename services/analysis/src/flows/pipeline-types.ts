import type { AuditTier, Report, TraceEvent } from '@meridian/contracts';
import type { AnalysisDeps } from '../deps.js';

/** What the worker hands the pipeline (src/flows/run-pipeline.ts) for one run. */
export interface PipelineInput {
  run_id: string;
  domain: string;
  tier: AuditTier;
  /** The active-testing authorization the secure and review tiers run under; null for base. */
  authorization: {
    id: string;
    expires_at: string;
    scope: { max_requests: number; paths: string[] };
  } | null;
  /** The domain's audit credentials, opened for this run only (never logged, never stored in the report). */
  credentials: Array<{
    id: string;
    kind: 'basic' | 'form' | 'header' | 'cookie';
    label: string;
    username: string | null;
    login_url: string | null;
    secret: string;
  }>;
  /** The last finished report of the same domain, for what changed since; null for the first. */
  previous: Report | null;
}

/** Appends one event to the run's live trace (stored in trace_events, streamed to the owner). */
export type Trace = (stage: string, status: TraceEvent['status'], message: string) => Promise<void>;

export type RunPipeline = (deps: AnalysisDeps, input: PipelineInput, trace: Trace) => Promise<Report>;
