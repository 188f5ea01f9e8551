import type { NextFunction, Request, Response } from 'express';
import { SignJWT, jwtVerify } from 'jose';
import { INTERNAL_ASSERTION_HEADER, callerSchema, type Caller } from '@meridian/contracts';
import { httpProblem } from './problem.js';

const ISSUER = 'meridian-gateway';
const ALGORITHM = 'HS256';
/** Short-lived: an assertion only has to cross one hop from the gateway to a service. */
export const ASSERTION_TTL_S = 60;

export function assertionKey(secret: string): Uint8Array {
  if (secret.length < 32) throw new Error('INTERNAL_AUTH_SECRET must be at least 32 characters');
  return new TextEncoder().encode(secret);
}

/** Signed by the gateway for each proxied request: who the caller is, as verified at the edge. */
export async function signCallerAssertion(
  caller: Caller,
  key: Uint8Array,
  now = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ caller })
    .setProtectedHeader({ alg: ALGORITHM })
    .setIssuer(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_TTL_S)
    .sign(key);
}

export async function verifyCallerAssertion(token: string, key: Uint8Array): Promise<Caller | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: [ALGORITHM] });
    const parsed = callerSchema.safeParse(payload.caller);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express's own augmentation point
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

const VERIFIED_CACHE_LIMIT = 10_000;

/**
 * Refuses any request that does not carry a valid assertion from the gateway, so a request sent
 * straight to a service port with forged headers gets 401. Sets `req.caller`.
 * The gateway reuses one token per caller for half its lifetime, so a verified token is kept
 * until it expires: the signature is checked once per token, not once per request.
 */
export function requireCaller(key: Uint8Array) {
  const verify = callerVerifier(key);
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const caller = await verify(req.header(INTERNAL_ASSERTION_HEADER));
    if (!caller) return next(notFromGateway());
    req.caller = caller;
    next();
  };
}

export function notFromGateway() {
  return httpProblem('unauthorized', 'This request did not come through the gateway.');
}

/** Verifies assertions with a cache of verified tokens (see requireCaller). */
export function callerVerifier(key: Uint8Array): (token: string | undefined) => Promise<Caller | undefined> {
  const verified = new Map<string, { caller: Caller; expiresAt: number }>();
  return async (token) => (token ? cachedVerify(verified, token, key) : undefined);
}

async function cachedVerify(
  cache: Map<string, { caller: Caller; expiresAt: number }>,
  token: string,
  key: Uint8Array,
): Promise<Caller | undefined> {
  const now = Date.now();
  const hit = cache.get(token);
  if (hit && hit.expiresAt > now) return hit.caller;
  const caller = await verifyCallerAssertion(token, key);
  if (!caller) return undefined;
  if (cache.size >= VERIFIED_CACHE_LIMIT) cache.clear();
  cache.set(token, { caller, expiresAt: expiryOf(token) });
  return caller;
}

/** The `exp` of a token whose signature was just verified. */
function expiryOf(token: string): number {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
    exp?: number;
  };
  return (payload.exp ?? 0) * 1000;
}

/**
 * The account of a request by session or by API key (e.g. whoami); 401 when the gateway vouched
 * for no account. Account management wants sessionAccountOf.
 */
export function accountOf(req: Request): string {
  const accountId = req.caller?.account_id;
  if (!accountId) throw httpProblem('unauthorized', 'A valid session is required.');
  return accountId;
}

/**
 * The account of a request made with a signed-in session; 401 (portal 7: "no valid session") for
 * anyone else, a caller with an API key included: a key reads data, it does not manage the
 * account that owns it (make keys, change the second factor...).
 */
export function sessionAccountOf(req: Request): string {
  const caller = req.caller;
  if (caller?.auth !== 'session' || !caller.account_id)
    throw httpProblem('unauthorized', 'A valid session is required; an API key cannot manage an account.');
  return caller.account_id;
}

/** How long a passed second factor opens the operator routes (as GitHub's sudo mode, Stripe). */
const STEP_UP_WINDOW_MS = 15 * 60 * 1000;

/** Whether a session's last passed second factor (ISO 8601, or none) is within the step-up window. */
function steppedUp(secondFactorAt: string | null | undefined, now = Date.now()): boolean {
  if (!secondFactorAt) return false;
  const at = Date.parse(secondFactorAt);
  return Number.isFinite(at) && at <= now + 60_000 && now - at <= STEP_UP_WINDOW_MS;
}

/**
 * The operator behind a request to an operator route: a signed-in session of an account holding
 * the operator role with TOTP active, that passed the second factor within STEP_UP_WINDOW_MS.
 * 401 without a session; 403 `operator_role_required` without the role; 403
 * `operator_totp_required` with the role but no active second factor; 403 `step_up_required`
 * when the session did not pass it lately (a password-only session, or one older than the window).
 */
export function operatorAccountOf(req: Request, now = Date.now()): string {
  const accountId = sessionAccountOf(req);
  if (req.caller?.role !== 'operator')
    throw httpProblem('forbidden', 'This route is for accounts with the operator role.', {
      category: 'operator_role_required',
    });
  if (req.caller.totp_active !== true)
    throw httpProblem('forbidden', 'Operators must have TOTP active; enrol it under /v1/account/2fa first.', {
      category: 'operator_totp_required',
    });
  if (!steppedUp(req.caller.second_factor_at, now))
    throw httpProblem(
      'forbidden',
      'Operator routes need a second factor passed in the last 15 minutes: confirm with a current code at POST /v1/account/step-up {code}.',
      { category: 'step_up_required' },
    );
  return accountId;
}
