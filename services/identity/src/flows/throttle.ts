import type { Request } from 'express';
import type { Kysely } from 'kysely';
import { httpProblem } from '@meridian/http-kit';
import { clearThrottle, lockThrottle, readThrottles, writeThrottle } from '../db/repositories/throttle.js';
import { afterFailure, checkThrottle, type ThrottlePolicy } from '../domain/throttle.js';
import type { Database } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';

export interface LoginScopes {
  email: string;
  address: string;
}

export function loginScopes(email: string, req: Request): LoginScopes {
  // Behind the gateway, req.ip is the client from X-Forwarded-For ('trust proxy' is TRUST_PROXY: loopback and private ranges by default).
  return { email: loginEmailScope(email), address: `login:ip:${req.ip ?? 'unknown'}` };
}

export const loginEmailScope = (email: string) => `login:email:${email}`;

function policies(deps: IdentityDeps): Record<keyof LoginScopes, ThrottlePolicy> {
  const c = deps.config;
  return {
    email: {
      delayAfter: c.LOGIN_DELAY_AFTER,
      lockAfter: c.LOGIN_LOCK_AFTER,
      lockSeconds: c.LOGIN_LOCK_SECONDS,
    },
    address: {
      delayAfter: c.LOGIN_IP_DELAY_AFTER,
      lockAfter: c.LOGIN_IP_LOCK_AFTER,
      lockSeconds: c.LOGIN_LOCK_SECONDS,
    },
  };
}

/** Throws the 429 when either scope must wait; the same answer whether the email has an account or not. */
export async function assertNotThrottled(deps: IdentityDeps, scopes: LoginScopes): Promise<void> {
  const states = await readThrottles(deps.db, [scopes.email, scopes.address]);
  const now = new Date();
  let wait = 0;
  for (const scope of [scopes.email, scopes.address]) {
    const decision = checkThrottle(states.get(scope), now);
    if (!decision.allowed) wait = Math.max(wait, decision.retryAfterSeconds);
  }
  if (wait > 0)
    throw httpProblem('rate_limit', 'Too many failed sign-ins; wait before trying again.', {
      retryAfter: wait,
    });
}

export async function recordFailure(deps: IdentityDeps, scopes: LoginScopes): Promise<void> {
  const policy = policies(deps);
  await deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    for (const key of ['email', 'address'] as const) {
      const state = await lockThrottle(trx, scopes[key], now);
      await writeThrottle(trx, scopes[key], afterFailure(state, policy[key], now));
    }
  });
}

/** A success clears the email's counter, not the address's: one good account must not unlock an address. */
export async function recordSuccess(deps: IdentityDeps, scopes: LoginScopes): Promise<void> {
  await clearThrottle(deps.db, scopes.email);
}

/**
 * A once-a-minute limit kept per email address whether or not it has an account, so the 429
 * itself reveals nothing. Answers 0 when claimed, else the seconds still to wait.
 */
export async function claimMinuteSlot(deps: IdentityDeps, scope: string): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const state = await lockThrottle(trx, scope, now);
    const decision = checkThrottle(state, now);
    if (!decision.allowed) return decision.retryAfterSeconds;
    await writeThrottle(trx, scope, {
      failures: 1,
      lastFailureAt: now,
      blockedUntil: new Date(now.getTime() + 60_000),
    });
    return 0;
  });
}

/**
 * Wrong second factors of one account (a login challenge, disable, recovery-code regeneration),
 * counted across challenges: a challenge dies after five answers, but signing in again with the
 * password makes a new one, so the count that stops guessing belongs to the account. No delays,
 * just the lock: TWO_FACTOR_LOCK_AFTER consecutive failures lock for LOGIN_LOCK_SECONDS.
 * Each function runs in the transaction that holds the account's row lock, so parallel attempts
 * are counted one after the other.
 */
const secondFactorScope = (accountId: string) => `2fa:account:${accountId}`;

function secondFactorPolicy(deps: IdentityDeps): ThrottlePolicy {
  const c = deps.config;
  return {
    delayAfter: c.TWO_FACTOR_LOCK_AFTER,
    lockAfter: c.TWO_FACTOR_LOCK_AFTER,
    lockSeconds: c.LOGIN_LOCK_SECONDS,
  };
}

export async function assertSecondFactorAllowed(trx: Kysely<Database>, accountId: string): Promise<void> {
  const now = new Date();
  const decision = checkThrottle(await lockThrottle(trx, secondFactorScope(accountId), now), now);
  if (!decision.allowed)
    throw httpProblem('rate_limit', 'Too many wrong second-factor codes; wait before trying again.', {
      retryAfter: decision.retryAfterSeconds,
    });
}

export async function recordSecondFactorFailure(
  deps: IdentityDeps,
  trx: Kysely<Database>,
  accountId: string,
): Promise<void> {
  const now = new Date();
  const scope = secondFactorScope(accountId);
  const state = await lockThrottle(trx, scope, now);
  await writeThrottle(trx, scope, afterFailure(state, secondFactorPolicy(deps), now));
}

export async function clearSecondFactorFailures(trx: Kysely<Database>, accountId: string): Promise<void> {
  await clearThrottle(trx, secondFactorScope(accountId));
}
