import type { Request } from 'express';
import type { Result } from '@meridian/contracts';
import { valueOrProblem, type RefusalProblem, type ServiceRefusal } from '@meridian/http-kit';
import type { IdentityRefusal } from '../domain/refusals.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export const IDENTITY_PROBLEMS = {
  weak_password: { kind: 'validation_failed', field: 'body.password' },
  invalid_token: { kind: 'bad_request', category: 'invalid_token' },
  rate_limited: { kind: 'rate_limit', retryAfter: 1 },
  invalid_credentials: { kind: 'unauthorized', category: 'invalid_credentials' },
  challenge_expired: { kind: 'unauthorized', category: 'challenge_expired' },
  // Not 401: the portal keeps 401 for "no valid session", on which a client signs the person
  // out; a wrong code leaves a signed-in account signed in (and a login challenge open).
  invalid_code: { kind: 'forbidden', category: 'invalid_code' },
  email_unconfirmed: { kind: 'forbidden', category: 'email_unconfirmed' },
  oidc_refused: {
    kind: 'bad_request',
    category: 'oidc_refused',
    detail: (detail) => `The provider sign-in was refused: ${detail}.`,
  },
  provider_unreachable: { kind: 'bad_gateway' },
  too_many_keys: { kind: 'conflict', category: 'too_many_keys' },
  // 403, not 401: the session stays valid, only the re-confirmation failed.
  wrong_password: { kind: 'forbidden', category: 'invalid_password' },
  reauthentication_required: { kind: 'forbidden', category: 'reauthentication_required' },
  operator_required: { kind: 'forbidden', category: 'operator_required' },
  nickname_taken: { kind: 'conflict', category: 'nickname_taken' },
  conflict: { kind: 'conflict' },
  not_found: { kind: 'not_found' },
  unauthorized: { kind: 'unauthorized' },
} as const satisfies Record<IdentityRefusal, RefusalProblem>;

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export const valueOf = <T>(result: Result<T, IdentityRefusal> | ServiceRefusal<IdentityRefusal>): T =>
  valueOrProblem(IDENTITY_PROBLEMS, result);

/**
 * The caller's address as it reaches identity: `req.ip` believes X-Forwarded-For only from the
 * peers of TRUST_PROXY (the gateway's network), and the gateway replaces a client's own header
 * with the one address it saw, so an outside caller cannot name another.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
