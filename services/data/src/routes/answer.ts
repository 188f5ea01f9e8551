import type { Problem } from '@meridian/contracts';
import { HttpProblem, refusalProblem, type RefusalProblem } from '@meridian/http-kit';
import type { DataRefusal, DataRefused } from '../domain/refusals.js';
import { FIRST_LOAD_RETRY_AFTER_S } from '../jobs/first-load.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const DATA_PROBLEMS = {
  // A routing 404: the spec keeps not_yet_available for a path that is right.
  unknown_metric: { kind: 'route_not_found' },
  not_yet_available: { kind: 'not_yet_available' },
  unauthorized: { kind: 'unauthorized' },
  tier_forbidden: { kind: 'tier_forbidden' },
  validation_failed: { kind: 'validation_failed' },
  invalid_cursor: { kind: 'invalid_cursor' },
  not_found: { kind: 'not_found' },
  first_load_running: { kind: 'service_unavailable', retryAfter: FIRST_LOAD_RETRY_AFTER_S },
} as const satisfies Record<DataRefusal, RefusalProblem>;

/** A refusal's problem, for the routes and the ingest subject alike: its row, and the inputs at fault. */
export function dataProblem(refusal: DataRefused): Problem {
  const body = refusalProblem(DATA_PROBLEMS, refusal);
  return refusal.errors ? { ...body, errors: refusal.errors } : body;
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: { ok: true; value: T } | DataRefused): T {
  if (!result.ok) throw new HttpProblem(dataProblem(result));
  return result.value;
}
