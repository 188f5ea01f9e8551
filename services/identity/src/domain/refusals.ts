/**
 * Every refusal a flow of identity returns: sign-in, account recovery, second factor, provider
 * sign-in and keys (portal sections 4.1, 4.2 and 5). routes/answer.ts gives each its problem.
 */
export type IdentityRefusal =
  /** No valid session (portal 5.1), or a session that no longer holds. */
  | 'unauthorized'
  | 'invalid_credentials'
  /** The account has not confirmed its email address (portal 5.3). */
  | 'email_unconfirmed'
  /** A TOTP or recovery code that does not match (portal 5.4). */
  | 'invalid_code'
  | 'challenge_expired'
  /** A mailed link (confirmation, reset, unlock, provider link) that is unknown, used or expired. */
  | 'invalid_token'
  | 'weak_password'
  | 'rate_limited'
  /** The identity provider refused the sign-in, or answered what does not check out. */
  | 'oidc_refused'
  | 'provider_unreachable'
  | 'too_many_keys'
  /** A signed-in person re-confirming who they are gave a wrong password (TOTP enrolment). */
  | 'wrong_password'
  /** A change that needs a fresh sign-in, from an account without a password (OIDC only). */
  | 'reauthentication_required'
  /** An operator's command or a service named an account that does not hold the operator role. */
  | 'operator_required'
  /** Another account holds the nickname (the unique index decides a race). */
  | 'nickname_taken'
  | 'conflict'
  | 'not_found';
