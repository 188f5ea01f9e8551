import {
  returnToken,
  takeToken,
  type BucketPolicy,
  type BucketState,
  type RateDecision,
} from '../domain/token-bucket.js';

/**
 * Token buckets by name: one per key for data calls, one per client address for failed
 * verifications. Synchronous in memory; a promise when the state is shared.
 */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  take(bucket: string, policy: BucketPolicy): RateDecision | Promise<RateDecision>;
  /** Gives back one token taken by take(); best effort, never fails the caller. */
  giveBack(bucket: string, policy: BucketPolicy): void;
  close(): Promise<void>;
}

/** The buckets of one replica, in memory: for one gateway, or when Redis is not configured. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = 200_000,
  ) {}

  take(bucket: string, policy: BucketPolicy): RateDecision {
    const { state, decision } = takeToken(this.buckets.get(bucket), this.now(), policy);
    this.keep(bucket, state);
    return decision;
  }

  giveBack(bucket: string, policy: BucketPolicy): void {
    const state = this.buckets.get(bucket);
    // A bucket that was swept is full already.
    if (state) this.buckets.set(bucket, returnToken(state, this.now(), policy));
  }

  private keep(bucket: string, state: BucketState): void {
    // A bucket untouched for a minute is full again, the same as a new one: forgetting it is exact.
    if (this.buckets.size >= this.maxBuckets && !this.buckets.has(bucket)) this.sweep(state.updatedAt);
    this.buckets.set(bucket, state);
  }

  private sweep(now: number): void {
    for (const [key, state] of this.buckets) if (now - state.updatedAt >= 60_000) this.buckets.delete(key);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
