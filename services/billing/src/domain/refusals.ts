import { refuse, type Refusal } from '@meridian/contracts';

/**
 * Every refusal a flow of billing returns, to a client (portal 4.4 and 4.5) or to another
 * service over request/reply. routes/answer.ts gives each its problem.
 */
export type BillingRefusal =
  /** The credit does not cover the charge (portal 7: 402 on POST /v1/audit/subscribe). */
  | 'insufficient_credit'
  /** A history cursor that was altered or not issued here (portal 4.5). */
  | 'invalid_cursor'
  | 'validation_failed'
  | 'conflict'
  | 'not_found'
  /** Top-ups by on-chain deposit are not configured on this deployment. */
  | 'deposits_off'
  /** An operator's write or a deposit names an account neither billing nor identity knows. */
  | 'unknown_account'
  /** Identity did not answer whether an account exists, so nothing was written. */
  | 'identity_unavailable'
  /** An operator's command names someone identity does not hold as an operator. */
  | 'operator_required';

/** The sums a refusal names, for machines: problem members beside the detail a person reads in dollars. */
export interface RefusalAmounts {
  balance_atomic?: number;
  needed_atomic?: number;
  refundable_atomic?: number;
  asked_atomic?: number;
}

/** A refusal that names sums of money: the detail says them in dollars, `amounts` in atomic units. */
export const refuseWithAmounts = <C extends string>(
  code: C,
  detail: string,
  amounts: RefusalAmounts,
): Refusal<C> & { amounts: RefusalAmounts } => ({ ...refuse(code, detail), amounts });
