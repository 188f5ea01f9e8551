import type { Caller, Plan, SessionVerifyReply } from '@meridian/contracts';
import type { RequestHeaders } from './request-headers.js';

/** What a data call presented as its key. */
export type PresentedKey = { kind: 'none' } | { kind: 'key'; key: string } | { kind: 'malformed' };

const BEARER = /^bearer\s+(\S+)\s*$/i;

/** `X-API-Key: <key>` or `Authorization: Bearer <key>` (data-api-interface 5); any other Authorization is no key. */
export function presentedKey(headers: RequestHeaders): PresentedKey {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string')
    return apiKey.trim() ? { kind: 'key', key: apiKey.trim() } : { kind: 'malformed' };
  const authorization = headers.authorization;
  if (authorization === undefined) return { kind: 'none' };
  const match = BEARER.exec(authorization);
  return match ? { kind: 'key', key: match[1]! } : { kind: 'malformed' };
}

/**
 * The WWW-Authenticate challenge of a 401 (RFC 9110 11.6.1, RFC 6750 3): a bearer scheme, and
 * `invalid_token` when a credential was presented and refused.
 */
export function bearerChallenge(presented: boolean): string {
  return presented ? 'Bearer realm="meridian", error="invalid_token"' : 'Bearer realm="meridian"';
}

/** The bearer token of a portal call, if any. */
export function bearerToken(headers: RequestHeaders): string | undefined {
  const authorization = headers.authorization;
  return authorization ? BEARER.exec(authorization)?.[1] : undefined;
}

/** Who a key is, as the services are told (the caller assertion). */
export function keyCaller(v: { account_id: string; plan: Plan; key_id: string }): Caller {
  return { account_id: v.account_id, plan: v.plan, auth: 'api_key', key_id: v.key_id, session_id: null };
}

/** Who a signed-in session is; operator routes check its role and TOTP in the service that owns them. */
export function sessionCaller(v: SessionVerifyReply): Caller {
  const caller: Caller = {
    account_id: v.account_id,
    plan: v.plan,
    auth: 'session',
    key_id: null,
    session_id: v.session_id,
  };
  if (v.role) caller.role = v.role;
  if (v.totp_active !== undefined) caller.totp_active = v.totp_active;
  if (v.second_factor_at !== undefined) caller.second_factor_at = v.second_factor_at;
  return caller;
}
