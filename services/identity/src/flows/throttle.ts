import type { Kysely } from 'kysely';
import {
  clearThrottle,
  clearThrottlePrefix,
  lockThrottle,
  writeThrottle,
} from '../db/repositories/throttle.js';
import {
  afterFailure,
  checkThrottle,
  useQuota,
  withoutOneFailure,
  type QuotaPolicy,
  type ThrottlePolicy,
  type ThrottleState,
} from '../domain/throttle.js';
import type { Database } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import type { SignInTrust } from './known-sign-ins.js';

/**
 * The counters a password sign-in meets, in the order every attempt locks them (so parallel
 * attempts never deadlock): the email from everywhere (`email`: a slower backoff that anyone can
 * push, which the owner gets around from a known browser or address), or in its place the known
 * browser's own (`device`); the email from this client address (`pair`: fast delays and a lock);
 * the client address whatever the email (`address`). An attempt from a known address meets no
 * email-wide counter: its pair counter bounds it.
 */
type ScopeKind = 'email' | 'device' | 'pair' | 'address';
export interface LoginScope {
  kind: ScopeKind;
  scope: string;
}

/** `clientAddress`: the caller's address as the gateway forwarded it (routes/answer.ts). */
export function loginScopes(email: string, clientAddress: string, trust: SignInTrust): LoginScope[] {
  const first: LoginScope[] =
    trust?.kind === 'device'
      ? [{ kind: 'device', scope: `login:device:${trust.tokenHash}` }]
      : trust?.kind === 'address'
        ? []
        : [{ kind: 'email', scope: loginEmailScope(email) }];
  return [
    ...first,
    { kind: 'pair', scope: loginPairScope(email, clientAddress) },
    { kind: 'address', scope: `login:ip:${clientAddress}` },
  ];
}

const loginEmailScope = (email: string) => `login:email:${email}`;
/** Every pair counter of an email starts so; a reset clears them all. */
const loginPairPrefix = (email: string) => `login:pair:${email}|`;
export const loginPairScope = (email: string, clientAddress: string) =>
  `${loginPairPrefix(email)}${clientAddress}`;

function policies(deps: IdentityDeps): Record<ScopeKind, ThrottlePolicy> {
  const c = deps.config;
  const pair = {
    delayAfter: c.LOGIN_DELAY_AFTER,
    lockAfter: c.LOGIN_LOCK_AFTER,
    lockSeconds: c.LOGIN_LOCK_SECONDS,
  };
  return {
    email: {
      delayAfter: c.LOGIN_ACCOUNT_DELAY_AFTER,
      lockAfter: c.LOGIN_ACCOUNT_LOCK_AFTER,
      lockSeconds: c.LOGIN_LOCK_SECONDS,
    },
    device: pair,
    pair,
    address: {
      delayAfter: c.LOGIN_IP_DELAY_AFTER,
      lockAfter: c.LOGIN_IP_LOCK_AFTER,
      lockSeconds: c.LOGIN_LOCK_SECONDS,
    },
  };
}

export interface LoginAttempt {
  /** 0: counted, go on to the password check; else the seconds to wait. */
  wait: number;
  /** The email's own backoff is what holds the attempt back: its owner is offered the unlock link. */
  emailHeld: boolean;
}

/**
 * Counts a sign-in attempt as a failure before its password is checked, or answers the seconds
 * to wait when any scope must wait (the same whether the email has an account or not). The rows
 * are locked in one transaction, in one order, so parallel guesses take turns at the lock and no
 * more of them reach bcrypt than the counters allow. A right password gives the count back
 * (passwordAccepted); a crash in between leaves it counted, on the safe side.
 */
export async function claimLoginAttempt(deps: IdentityDeps, scopes: LoginScope[]): Promise<LoginAttempt> {
  const policy = policies(deps);
  return deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const states: (ThrottleState | undefined)[] = [];
    let wait = 0;
    let emailHeld = false;
    for (const { kind, scope } of scopes) {
      const state = await lockThrottle(trx, scope, now);
      const decision = checkThrottle(state, now);
      if (!decision.allowed) {
        wait = Math.max(wait, decision.retryAfterSeconds);
        if (kind === 'email') emailHeld = true;
      }
      states.push(state);
    }
    if (wait > 0) return { wait, emailHeld };
    for (const [i, { kind, scope }] of scopes.entries())
      await writeThrottle(trx, scope, afterFailure(states[i], policy[kind], now));
    return { wait: 0, emailHeld: false };
  });
}

/**
 * The password was right: the attempt's provisional failure is taken back. When that completes
 * the sign-in (no unconfirmed email, no second factor owed) the attempt's email, device and pair
 * counters are cleared; the address's never is, as one good account must not unlock an address
 * for guesses at others.
 */
export async function passwordAccepted(
  deps: IdentityDeps,
  scopes: LoginScope[],
  signedIn: boolean,
): Promise<void> {
  const policy = policies(deps);
  await deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    for (const { kind, scope } of scopes) {
      if (kind !== 'address' && signedIn) {
        await clearThrottle(trx, scope);
        continue;
      }
      const state = await lockThrottle(trx, scope, now);
      if (state) await writeThrottle(trx, scope, withoutOneFailure(state, policy[kind]));
    }
  });
}

/** Lifts every sign-in counter of an email: its owner proved it (a reset, a sign-in with both factors). */
export async function clearLoginThrottle(db: Kysely<Database>, email: string): Promise<void> {
  await clearThrottle(db, loginEmailScope(email));
  await clearThrottlePrefix(db, loginPairPrefix(email));
}

/**
 * A once-a-minute limit kept per email address whether or not it has an account, so the 429
 * itself reveals nothing. Answers 0 when claimed, else the seconds still to wait.
 */
export async function claimMinuteSlot(deps: IdentityDeps, scope: string, seconds = 60): Promise<number> {
  return deps.db.transaction().execute(async (trx) => claimMinuteSlotIn(trx, scope, seconds));
}

/** claimMinuteSlot inside the caller's transaction: the claim commits or rolls back with it. */
export async function claimMinuteSlotIn(trx: Kysely<Database>, scope: string, seconds = 60): Promise<number> {
  const now = new Date();
  const state = await lockThrottle(trx, scope, now);
  const decision = checkThrottle(state, now);
  if (!decision.allowed) return decision.retryAfterSeconds;
  await writeThrottle(trx, scope, {
    failures: 1,
    lastFailureAt: now,
    blockedUntil: new Date(now.getTime() + seconds * 1000),
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

/**
 * Spends one use of a quota (sign-ups of a client address, key creations of an account) in the
 * caller's transaction, the counter row-locked so replicas count every use. Answers 0, or the
 * seconds until the window ends when the quota is spent (nothing is counted then).
 */
export async function spendQuota(trx: Kysely<Database>, scope: string, policy: QuotaPolicy): Promise<number> {
  const now = new Date();
  const decision = useQuota(await lockThrottle(trx, scope, now), policy, now);
  if (!decision.allowed) return decision.retryAfterSeconds;
  await writeThrottle(trx, scope, decision.state);
  return 0;
}
