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
  | 'deposits_off';
