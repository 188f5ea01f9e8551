import type { Request } from 'express';
import type { Refusal, Result } from '@meridian/contracts';
import { httpProblem, type HttpProblem } from '@meridian/http-kit';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export function problemOf(refusal: Refusal & { retryAfter?: number }): HttpProblem {
  const { code, detail } = refusal;
  switch (code) {
    case 'weak_password':
      return httpProblem('validation_failed', detail, {
        errors: [{ path: 'body.password', message: detail }],
      });
    case 'invalid_token':
      return httpProblem('bad_request', detail, { category: 'invalid_token' });
    case 'rate_limited':
      return httpProblem('rate_limit', detail, { retryAfter: refusal.retryAfter ?? 1 });
    case 'invalid_credentials':
    case 'challenge_expired':
      return httpProblem('unauthorized', detail, { category: code });
    // Not 401: the portal keeps 401 for "no valid session", on which a client signs the person
    // out; a wrong code leaves a signed-in account signed in (and a login challenge open).
    case 'invalid_code':
      return httpProblem('forbidden', detail, { category: code });
    case 'email_unconfirmed':
      return httpProblem('forbidden', detail, { category: code });
    case 'oidc_refused':
      return httpProblem('bad_request', `The provider sign-in was refused: ${detail}.`, { category: code });
    case 'provider_unreachable':
      return httpProblem('bad_gateway', detail);
    case 'too_many_keys':
      return httpProblem('conflict', detail, { category: code });
    case 'conflict':
      return httpProblem('conflict', detail);
    case 'not_found':
      return httpProblem('not_found', detail);
    case 'unauthorized':
      return httpProblem('unauthorized', detail);
    default:
      throw new Error(`no problem is defined for the refusal ${code}`);
  }
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: Result<T>): T {
  if (!result.ok) throw problemOf(result);
  return result.value;
}

/**
 * The caller's address as it reaches identity: `req.ip` believes X-Forwarded-For only from the
 * peers of TRUST_PROXY (the gateway's network), and the gateway replaces a client's own header
 * with the one address it saw, so an outside caller cannot name another.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
