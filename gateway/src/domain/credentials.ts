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
