/**
 * Every refusal a flow of analysis answers a client (portal 4.3 and 4.4). routes/answer.ts
 * gives each its problem. A run's own failure (a domain removed while it waited) is recorded on
 * the run, not answered, and is not one of these.
 */
export type AnalysisRefusal =
  | 'validation_failed'
  /** Portal 7: 400 on POST /v1/audit/authorize, "domain not verified". */
  | 'domain_not_verified'
  /** Portal 7: 400 on POST /v1/audit/authorize, "no attestation". */
  | 'attestation_required'
  /** An active test of a domain without an active-testing authorization (portal 4.4). */
  | 'authorization_required'
  /** Portal 7: 404 on POST /v1/audit/authorization/revoke, "no active authorization"; any record not the caller's. */
  | 'not_found'
  | 'conflict'
  | 'too_many_streams'
  /** A live trace of a run not paid for: it would never end. */
  | 'run_not_paid'
  | 'too_many_runs'
  /** Unpaid deposit quotes of runs reached the account's cap. */
  | 'quote_limit'
  /** DNS, which verification asks, did not answer. */
  | 'service_unavailable'
  /** A share link its owner revoked, or one past its expiry (portal 4.3). */
  | 'share_revoked'
  | 'share_expired'
  /** A link shared with signed-in accounts, opened signed out. */
  | 'share_sign_in'
  /** A link shared with named people, opened by another account. */
  | 'share_not_for_you';
