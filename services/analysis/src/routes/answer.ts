import type { Refusal, Result } from '@meridian/contracts';
import { HttpProblem, httpProblem } from '@meridian/http-kit';
import type { Upstream } from '../flows/commission-run.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export function problemOf(refusal: Refusal | Upstream): HttpProblem {
  if (refusal.code === 'upstream') return new HttpProblem((refusal as Upstream).problem);
  const { code, detail } = refusal;
  switch (code) {
    case 'validation_failed':
      return httpProblem('validation_failed', detail);
    case 'domain_not_verified':
    case 'attestation_required':
      return httpProblem('bad_request', detail, { category: code });
    case 'authorization_required':
      return httpProblem('forbidden', detail, { category: code });
    case 'not_found':
      return httpProblem('not_found', detail);
    case 'conflict':
      return httpProblem('conflict', detail);
    case 'too_many_streams':
    case 'too_many_runs':
      return httpProblem('rate_limit', detail, { category: code, retryAfter: 5 });
    case 'service_unavailable':
      return httpProblem('service_unavailable', detail, { retryAfter: 5 });
    default:
      throw new Error(`no problem is defined for the refusal ${code}`);
  }
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: Result<T> | Upstream): T {
  if (!result.ok) throw problemOf(result);
  return result.value;
}

export const METHOD = "Read from the analysis service's records.";
