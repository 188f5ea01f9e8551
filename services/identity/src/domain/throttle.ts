/**
 * Failed sign-in throttling, one counter per scope (an email address, a client address).
 * Up to `delayAfter` consecutive failures are free; each further failure makes the next
 * attempt wait 2^(n - delayAfter) seconds; at `lockAfter` the scope locks for `lockSeconds`.
 * A success clears the email scope. A counter idle for `lockSeconds` starts again from zero.
 * An attempt is counted before its password is checked (see flows/throttle.ts).
 */
export interface ThrottlePolicy {
  delayAfter: number;
  lockAfter: number;
  lockSeconds: number;
}

export interface ThrottleState {
  failures: number;
  lastFailureAt: Date;
  blockedUntil: Date | null;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function checkThrottle(state: ThrottleState | undefined, now: Date): ThrottleDecision {
  if (!state?.blockedUntil || state.blockedUntil <= now) return { allowed: true };
  return {
    allowed: false,
    retryAfterSeconds: Math.ceil((state.blockedUntil.getTime() - now.getTime()) / 1000),
  };
}

export function afterFailure(
  state: ThrottleState | undefined,
  policy: ThrottlePolicy,
  now: Date,
): ThrottleState {
  const stale = !state || now.getTime() - state.lastFailureAt.getTime() > policy.lockSeconds * 1000;
  const failures = (stale ? 0 : state.failures) + 1;
  return { failures, lastFailureAt: now, blockedUntil: blockedUntil(failures, policy, now) };
}

/**
 * The state with one failure taken back: a sign-in attempt is counted as a failure before its
 * password is checked, and a right password gives that provisional count back. The wait is
 * recomputed from the last failure, so taking back the failure that started a delay lifts it.
 */
export function withoutOneFailure(state: ThrottleState, policy: ThrottlePolicy): ThrottleState {
  const failures = Math.max(0, state.failures - 1);
  return {
    failures,
    lastFailureAt: state.lastFailureAt,
    blockedUntil: blockedUntil(failures, policy, state.lastFailureAt),
  };
}

function blockedUntil(failures: number, policy: ThrottlePolicy, now: Date): Date | null {
  if (failures >= policy.lockAfter) return new Date(now.getTime() + policy.lockSeconds * 1000);
  if (failures < policy.delayAfter) return null;
  const seconds = Math.min(2 ** (failures - policy.delayAfter), policy.lockSeconds);
  return new Date(now.getTime() + seconds * 1000);
}

/**
 * A quota: at most `limit` uses per window of `windowSeconds`, the window starting at its first
 * use (kept in a ThrottleState: `failures` counts the uses, `lastFailureAt` is the window's start).
 */
export interface QuotaPolicy {
  limit: number;
  windowSeconds: number;
}

export type QuotaDecision =
  { allowed: true; state: ThrottleState } | { allowed: false; retryAfterSeconds: number };

export function useQuota(state: ThrottleState | undefined, policy: QuotaPolicy, now: Date): QuotaDecision {
  const windowMs = policy.windowSeconds * 1000;
  const current = state && now.getTime() - state.lastFailureAt.getTime() < windowMs ? state : undefined;
  const start = current?.lastFailureAt ?? now;
  const used = current?.failures ?? 0;
  const end = new Date(start.getTime() + windowMs);
  if (used >= policy.limit)
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000)),
    };
  const uses = used + 1;
  return {
    allowed: true,
    state: { failures: uses, lastFailureAt: start, blockedUntil: uses >= policy.limit ? end : null },
  };
}

/**
 * Key churn: a creation waits once `policy.limit` keys were revoked within the window, until the
 * oldest of those leaves it. Creations that only fill the plan's cap of live keys never wait, so
 * every plan can hold all the keys it allows; what is bounded is making and dropping keys.
 * Answers 0 or the seconds to wait.
 */
export function keyChurnWait(revokedAt: readonly Date[], policy: QuotaPolicy, now: Date): number {
  const windowMs = policy.windowSeconds * 1000;
  const within = revokedAt
    .map((at) => at.getTime())
    .filter((at) => now.getTime() - at < windowMs)
    .sort((a, b) => b - a);
  if (within.length < policy.limit) return 0;
  const leavesAt = within[policy.limit - 1]! + windowMs;
  return Math.max(1, Math.ceil((leavesAt - now.getTime()) / 1000));
}
