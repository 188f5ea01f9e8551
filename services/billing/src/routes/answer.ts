import type { Result } from '@meridian/contracts';
import { valueOrProblem, type RefusalProblem } from '@meridian/http-kit';
import type { BillingRefusal } from '../domain/refusals.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const BILLING_PROBLEMS = {
  insufficient_credit: { kind: 'insufficient_credit' },
  invalid_cursor: { kind: 'invalid_cursor', field: 'query.cursor' },
  validation_failed: { kind: 'validation_failed' },
  conflict: { kind: 'conflict' },
  not_found: { kind: 'not_found' },
  deposits_off: { kind: 'service_unavailable', category: 'deposits_unavailable' },
} as const satisfies Record<BillingRefusal, RefusalProblem>;

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export const valueOf = <T>(result: Result<T, BillingRefusal>): T => valueOrProblem(BILLING_PROBLEMS, result);
