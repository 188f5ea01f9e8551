import type { Refusal, Result, Upstream } from '@meridian/contracts';
import { HttpProblem, refusalProblem, valueOrProblem, type RefusalProblem } from '@meridian/http-kit';
import type { AnalysisRefusal } from '../domain/refusals.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const ANALYSIS_PROBLEMS = {
  validation_failed: { kind: 'validation_failed' },
  domain_not_verified: { kind: 'bad_request', category: 'domain_not_verified' },
  attestation_required: { kind: 'bad_request', category: 'attestation_required' },
  authorization_required: { kind: 'forbidden', category: 'authorization_required' },
  not_found: { kind: 'not_found' },
  conflict: { kind: 'conflict' },
  too_many_streams: { kind: 'rate_limit', category: 'too_many_streams', retryAfter: 5 },
  run_not_paid: { kind: 'conflict', category: 'run_not_paid' },
  too_many_runs: { kind: 'rate_limit', category: 'too_many_runs', retryAfter: 5 },
  quote_limit: { kind: 'conflict', category: 'quote_limit' },
  service_unavailable: { kind: 'service_unavailable', retryAfter: 5 },
  // A share link that shows nothing: its kind is the category a client branches on.
  share_revoked: { kind: 'gone' },
  share_expired: { kind: 'gone' },
  share_sign_in: { kind: 'unauthorized' },
  share_not_for_you: { kind: 'forbidden' },
} as const satisfies Record<AnalysisRefusal, RefusalProblem>;

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export const valueOf = <T>(result: Result<T, AnalysisRefusal> | Upstream): T =>
  valueOrProblem(ANALYSIS_PROBLEMS, result);

/** A refusal as the problem a client gets, for a route that answers something beside the problem. */
export const analysisProblem = (refusal: Refusal<AnalysisRefusal>): HttpProblem =>
  new HttpProblem(refusalProblem(ANALYSIS_PROBLEMS, refusal));

export const METHOD = "Read from the analysis service's records.";
