import type { Result, Upstream } from '@meridian/contracts';
import { valueOrProblem, type RefusalProblem } from '@meridian/http-kit';
import type { RequestsRefusal } from '../domain/refusals.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const REQUESTS_PROBLEMS = {
  validation_failed: { kind: 'validation_failed' },
  conflict: { kind: 'conflict' },
  not_found: { kind: 'not_found' },
  hold_limit: { kind: 'conflict', category: 'hold_limit' },
  request_limit: { kind: 'conflict', category: 'request_limit' },
} as const satisfies Record<RequestsRefusal, RefusalProblem>;

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export const valueOf = <T>(result: Result<T, RequestsRefusal> | Upstream): T =>
  valueOrProblem(REQUESTS_PROBLEMS, result);
