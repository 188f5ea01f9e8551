import {
  retire,
  returnToken,
  takeToken,
  type BucketPolicy,
  type BucketState,
  type RateDecision,
} from '../domain/token-bucket.js';

/**
 * A token taken that may have to be given back. `giveBack` returns it to the store that answered
 * the take, whichever answers now; best effort, never fails the caller. Call it only if the
 * decision allowed the take.
 */
export interface HeldToken {
  decision: RateDecision;
  giveBack: () => void;
}

/** A take of an own bucket within an account-wide one: the second only if the first allowed. */
export interface WithinDecision {
  own: RateDecision;
  /** The account-wide bucket's decision; absent when the own bucket refused (nothing taken there). */
  account?: RateDecision;
}

/**
 * Token buckets by name: one per key for data calls, one per client address for failed
 * verifications. Synchronous in memory; a promise when the state is shared.
 */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** `startFrom`: the bucket a bucket that does not exist yet starts from (else it starts full). */
  take(bucket: string, policy: BucketPolicy, startFrom?: string): RateDecision | Promise<RateDecision>;
  /**
   * take() of `bucket` and, only when it allows, of the account-wide `account` too: on Redis one
   * round trip for both.
   */
  takeWithin(
    bucket: string,
    policy: BucketPolicy,
    startFrom: string | undefined,
    account: string,
    accountPolicy: BucketPolicy,
  ): WithinDecision | Promise<WithinDecision>;
  /** take() for a token that may come back; the data path's take() allocates no give-back. */
  hold(bucket: string, policy: BucketPolicy): HeldToken | Promise<HeldToken>;
  /** Moves what `bucket` spent into `into` (the lower level of the two wins); best effort. */
  retire(bucket: string, into: string, policy: BucketPolicy): void | Promise<void>;
  close(): Promise<void>;
}

/**
 * The buckets of one replica, in memory: for one gateway, or when Redis is not configured.
 * Bounded, since there is a bucket per unauthenticated client address: past `maxBuckets` the
 * bucket touched longest ago is forgotten, without a sweep. Forgetting a bucket untouched for a
 * minute is exact, as it is full again; one forgotten sooner starts full when it comes back, which
 * takes `maxBuckets` other buckets touched in between.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = 200_000,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  take(bucket: string, policy: BucketPolicy, startFrom?: string): RateDecision {
    const current =
      this.buckets.get(bucket) ?? (startFrom === undefined ? undefined : this.buckets.get(startFrom));
    const { state, decision } = takeToken(current, this.now(), policy);
    this.keep(bucket, state);
    return decision;
  }

  takeWithin(
    bucket: string,
    policy: BucketPolicy,
    startFrom: string | undefined,
    account: string,
    accountPolicy: BucketPolicy,
  ): WithinDecision {
    const own = this.take(bucket, policy, startFrom);
    return own.allowed ? { own, account: this.take(account, accountPolicy) } : { own };
  }

  hold(bucket: string, policy: BucketPolicy): HeldToken {
    return { decision: this.take(bucket, policy), giveBack: () => this.giveBack(bucket, policy) };
  }

  retire(bucket: string, into: string, policy: BucketPolicy): void {
    const state = retire(this.buckets.get(bucket), this.buckets.get(into), this.now(), policy);
    if (state) this.keep(into, state);
  }

  private giveBack(bucket: string, policy: BucketPolicy): void {
    const state = this.buckets.get(bucket);
    // A bucket forgotten is full already.
    if (state) this.keep(bucket, returnToken(state, this.now(), policy));
  }

  /** Re-inserted, so the map's order is the order of last use and its first entry the oldest. */
  private keep(bucket: string, state: BucketState): void {
    this.buckets.delete(bucket);
    this.buckets.set(bucket, state);
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
