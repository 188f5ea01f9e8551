import type { Kysely } from 'kysely';
import { clearThrottle, lockThrottle, writeThrottle } from '../db/repositories/throttle.js';
import {
  afterFailure,
  checkThrottle,
  withoutOneFailure,
  type ThrottlePolicy,
  type ThrottleState,
} from '../domain/throttle.js';
import type { Database } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';

export interface LoginScopes {
  email: string;
  address: string;
}

/** `clientAddress`: the caller's address as the gateway forwarded it (see routes/client.ts). */
export function loginScopes(email: string, clientAddress: string): LoginScopes {
  return { email: loginEmailScope(email), address: `login:ip:${clientAddress}` };
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

const SCOPE_ORDER = ['email', 'address'] as const;

/**
 * Counts a sign-in attempt as a failure before its password is checked and answers 0, or answers
 * the seconds to wait when either scope must wait (the same answer whether the email has an account or not). Both rows are
 * locked in one transaction, always email first, so parallel guesses take turns at the lock and
 * no more of them reach bcrypt than the counters allow. A right password gives the count back
 * (passwordAccepted); a crash in between leaves it counted, on the safe side.
 */
export async function claimLoginAttempt(deps: IdentityDeps, scopes: LoginScopes): Promise<number> {
  const policy = policies(deps);
  return deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const states = new Map<keyof LoginScopes, ThrottleState | undefined>();
    let longest = 0;
    for (const key of SCOPE_ORDER) {
      const state = await lockThrottle(trx, scopes[key], now);
      const decision = checkThrottle(state, now);
      if (!decision.allowed) longest = Math.max(longest, decision.retryAfterSeconds);
      states.set(key, state);
    }
    if (longest > 0) return longest;
    for (const key of SCOPE_ORDER)
      await writeThrottle(trx, scopes[key], afterFailure(states.get(key), policy[key], now));
    return 0;
  });
}

/**
 * The password was right: the attempt's provisional failure is taken back. When that completes
 * the sign-in (no unconfirmed email, no second factor owed) the email's counter is cleared; the
 * address's never is, as one good account must not unlock an address for guesses at others.
 */
export async function passwordAccepted(
  deps: IdentityDeps,
  scopes: LoginScopes,
  signedIn: boolean,
): Promise<void> {
  const policy = policies(deps);
  await deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    for (const key of SCOPE_ORDER) {
      if (key === 'email' && signedIn) {
        await clearThrottle(trx, scopes.email);
        continue;
      }
      const state = await lockThrottle(trx, scopes[key], now);
      if (state) await writeThrottle(trx, scopes[key], withoutOneFailure(state, policy[key]));
    }
  });
}

/**
 * A once-a-minute limit kept per email address whether or not it has an account, so the 429
 * itself reveals nothing. Answers 0 when claimed, else the seconds still to wait.
 */
export async function claimMinuteSlot(deps: IdentityDeps, scope: string): Promise<number> {
  return deps.db.transaction().execute(async (trx) => claimMinuteSlotIn(trx, scope));
}

/** claimMinuteSlot inside the caller's transaction: the claim commits or rolls back with it. */
export async function claimMinuteSlotIn(trx: Kysely<Database>, scope: string): Promise<number> {
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

/** 0 when the account may try a second factor now, else the seconds its lock still lasts. */
export async function secondFactorWait(trx: Kysely<Database>, accountId: string): Promise<number> {
  const now = new Date();
  const decision = checkThrottle(await lockThrottle(trx, secondFactorScope(accountId), now), now);
  return decision.allowed ? 0 : decision.retryAfterSeconds;
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
