import { PLAN_RATE_LIMITS, type Plan } from '@meridian/contracts';

/**
 * The bucket holds at most one minute's budget (capacity = the per-minute limit, so the burst is
 * the whole minute) and refills continuously at limit/60 tokens per second.
 */
export interface BucketPolicy {
  capacity: number;
  refillPerMs: number;
}

/** A budget of `limit` per minute, all of it available as a burst. */
export function perMinute(limit: number): BucketPolicy {
  return { capacity: limit, refillPerMs: limit / 60_000 };
}

export function planPolicy(
  plan: Plan,
  limits: Readonly<Record<Plan, number>> = PLAN_RATE_LIMITS,
): BucketPolicy {
  return perMinute(limits[plan]);
}

/** The policy of every plan, computed once rather than on every call of the hot path. */
export function planPolicies(
  limits: Readonly<Record<Plan, number>> = PLAN_RATE_LIMITS,
): Record<Plan, BucketPolicy> {
  return {
    free: planPolicy('free', limits),
    basic: planPolicy('basic', limits),
    pro: planPolicy('pro', limits),
    ultra: planPolicy('ultra', limits),
  };
}

export interface BucketState {
  tokens: number;
  updatedAt: number;
  /** The capacity `tokens` were counted against; absent in a state written before it was kept. */
  capacity?: number;
}

/**
 * The tokens of a state under `policy`: when the plan changed since the state was written, what
 * was spent stays spent and the rest follows the new size, so a plan bought applies to a bucket
 * at once (and one left applies at once too). The Redis scripts do the same.
 */
export function rebase(state: BucketState, policy: BucketPolicy): number {
  if (state.capacity === undefined || state.capacity === policy.capacity) return state.tokens;
  return Math.max(0, Math.min(policy.capacity, state.tokens + policy.capacity - state.capacity));
}

export interface RateDecision {
  allowed: boolean;
  /** The per-minute limit of the plan. */
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetS: number;
  /** Seconds until one token is available; 0 when allowed. */
  retryAfterS: number;
  /** Refused by the account-wide ceiling rather than the key's own bucket. */
  accountWide?: boolean;
}

/** Takes one token if there is one. The Redis script in adapters/redis-rate-limiter.ts is the same arithmetic. */
export function takeToken(
  state: BucketState | undefined,
  now: number,
  policy: BucketPolicy,
): { state: BucketState; decision: RateDecision } {
  let tokens = levelAt(state, now, policy);
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  return {
    state: { tokens, updatedAt: now, capacity: policy.capacity },
    decision: decide(allowed, tokens, policy),
  };
}

/**
 * Puts back a token taken for work that turned out not to count (a credential identity vouched
 * for does not spend the budget of failed verifications). Never above capacity.
 */
export function returnToken(state: BucketState | undefined, now: number, policy: BucketPolicy): BucketState {
  const tokens = Math.min(policy.capacity, levelAt(state, now, policy) + 1);
  return { tokens, updatedAt: now, capacity: policy.capacity };
}

/** The level of a bucket at `now`: its tokens and the refill since, at most capacity; none is full. */
export function levelAt(state: BucketState | undefined, now: number, policy: BucketPolicy): number {
  if (!state) return policy.capacity;
  const refill = Math.max(0, now - state.updatedAt) * policy.refillPerMs;
  return Math.min(policy.capacity, rebase(state, policy) + refill);
}

/**
 * The bucket the revoked keys of an account leave their spent budget in. A key's bucket that
 * does not exist yet starts from it rather than full, so revoking a spent key and making a new
 * one does not buy a fresh minute.
 */
/** Every data call of an account, whatever key or session made it: the account-wide ceiling. */
export function accountBucket(accountId: string): string {
  return `account:${accountId}`;
}

/** The account-wide ceiling of each plan: `multiple` times its per-key limit. */
export function accountPolicies(
  limits: Readonly<Record<Plan, number>>,
  multiple: number,
): Record<Plan, BucketPolicy> {
  const scaled = Object.fromEntries(
    Object.entries(limits).map(([plan, n]) => [plan, Math.max(1, Math.round(n * multiple))]),
  ) as Record<Plan, number>;
  return planPolicies(scaled);
}

export function retiredKeysBucket(accountId: string): string {
  return `retired-keys:${accountId}`;
}

/**
 * A revoked key's bucket joins its account's retired-keys bucket: the lower of the two levels
 * now. The Redis script of adapters/redis-rate-limiter.ts is the same arithmetic.
 */
export function retire(
  key: BucketState | undefined,
  retired: BucketState | undefined,
  now: number,
  policy: BucketPolicy,
): BucketState | undefined {
  if (!key) return retired;
  return {
    tokens: Math.min(levelAt(key, now, policy), levelAt(retired, now, policy)),
    updatedAt: now,
    capacity: policy.capacity,
  };
}

export function decide(allowed: boolean, tokens: number, policy: BucketPolicy): RateDecision {
  const perSecond = policy.refillPerMs * 1000;
  return {
    allowed,
    limit: policy.capacity,
    remaining: Math.floor(tokens),
    resetS: Math.ceil((policy.capacity - tokens) / perSecond),
    retryAfterS: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond)),
  };
}

/**
 * The rate-limit fields of an answer: the RateLimit-* triple of the spec and the structured fields
 * of draft-ietf-httpapi-ratelimit-headers (policy "per-key", quota q over window w seconds;
 * r remaining, t seconds until the quota is whole again).
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetS),
    'ratelimit-policy': `"per-key";q=${d.limit};w=60`,
    ratelimit: `"per-key";r=${d.remaining};t=${d.resetS}`,
  };
  if (!d.allowed) headers['retry-after'] = String(d.retryAfterS);
  return headers;
}
