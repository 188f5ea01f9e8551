import {
  retire,
  returnToken,
  takeToken,
  type BucketPolicy,
  type BucketState,
  type RateDecision,
} from '../domain/token-bucket.js';
import { TtlLru } from '../domain/ttl-lru.js';

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
  retire(bucket: string, into: string, policy: BucketPolicy): Promise<void>;
  close(): Promise<void>;
}

/**
 * The buckets of one replica, in memory: for one gateway, or when Redis is not configured.
 * Bounded, since there is a bucket per unauthenticated client address: past `maxBuckets` the
 * bucket touched longest ago is forgotten, without a sweep. Forgetting a bucket untouched for a
 * minute is exact, as it is full again; one forgotten sooner starts full when it comes back, which
 * takes `maxBuckets` other buckets touched in between. A take moves its bucket to the young end
 * at most once per `touchMs` (recency to within a second): a key read thousands of times a
 * second would otherwise have the Map delete and re-add it on every read.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  /** No bucket expires: one untouched for a minute is full again, and forgotten first. */
  private readonly buckets: TtlLru<BucketState>;

  constructor(
    private readonly now: () => number = Date.now,
    maxBuckets = 200_000,
    touchMs = 1_000,
  ) {
    this.buckets = new TtlLru(maxBuckets, Infinity, touchMs);
  }

  get size(): number {
    return this.buckets.size;
  }

  take(bucket: string, policy: BucketPolicy, startFrom?: string): RateDecision {
    const current = this.stateOf(bucket) ?? (startFrom === undefined ? undefined : this.stateOf(startFrom));
    const now = this.now();
    const { state, decision } = takeToken(current, now, policy);
    this.keep(bucket, state, now);
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

  async retire(bucket: string, into: string, policy: BucketPolicy): Promise<void> {
    const now = this.now();
    const state = retire(this.stateOf(bucket), this.stateOf(into), now, policy);
    if (state) this.keep(into, state, now);
  }

  private giveBack(bucket: string, policy: BucketPolicy): void {
    const state = this.stateOf(bucket);
    const now = this.now();
    // A bucket forgotten is full already.
    if (state) this.keep(bucket, returnToken(state, now, policy), now);
  }

  private stateOf(bucket: string): BucketState | undefined {
    return this.buckets.peek(bucket);
  }

  /** Kept at the young end (moved at most once per touchMs), so the oldest is forgotten first. */
  private keep(bucket: string, state: BucketState, now: number): void {
    this.buckets.set(bucket, state, now);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
