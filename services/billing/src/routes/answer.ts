import type { Problem, Result } from '@meridian/contracts';
import { HttpProblem, refusalProblem, type RefusalProblem, type ServiceRefusal } from '@meridian/http-kit';
import type { BillingRefusal, RefusalAmounts } from '../domain/refusals.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const BILLING_PROBLEMS = {
  insufficient_credit: { kind: 'insufficient_credit' },
  invalid_cursor: { kind: 'invalid_cursor', field: 'query.cursor' },
  validation_failed: { kind: 'validation_failed' },
  conflict: { kind: 'conflict' },
  not_found: { kind: 'not_found' },
  deposits_off: { kind: 'service_unavailable', category: 'deposits_unavailable' },
  unknown_account: { kind: 'not_found', category: 'unknown_account' },
  identity_unavailable: { kind: 'service_unavailable', category: 'identity_unavailable', retryAfter: 5 },
  operator_required: { kind: 'forbidden', category: 'operator_required' },
} as const satisfies Record<BillingRefusal, RefusalProblem>;

/**
 * A refusal's problem, for the routes and the subjects alike: the row of the table, and the sums
 * it names as extension members (RFC 9457 section 3.2) beside the detail that says them in dollars.
 */
export function billingProblem(
  refusal: ServiceRefusal<BillingRefusal> & { amounts?: RefusalAmounts },
): Problem {
  const body = refusalProblem(BILLING_PROBLEMS, refusal);
  return refusal.amounts ? { ...body, ...refusal.amounts } : body;
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: Result<T, BillingRefusal>): T {
  if (!result.ok) throw new HttpProblem(billingProblem(result));
  return result.value;
}
