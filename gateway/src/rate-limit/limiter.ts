import type { Plan } from '@meridian/contracts';
import { planPolicy, takeToken, type BucketState, type RateDecision } from '../domain/token-bucket.js';

/** One token per data call, per key. Synchronous in memory; a promise when the state is shared. */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  take(bucket: string, plan: Plan): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

/** The buckets of one replica, in memory: for one gateway, or when Redis is not configured. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly limits?: Record<Plan, number>,
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = 200_000,
  ) {}

  take(bucket: string, plan: Plan): RateDecision {
    const { state, decision } = takeToken(
      this.buckets.get(bucket),
      this.now(),
      planPolicy(plan, this.limits),
    );
    // A bucket untouched for a minute is full again, the same as a new one: forgetting it is exact.
    if (this.buckets.size >= this.maxBuckets && !this.buckets.has(bucket)) this.sweep(state.updatedAt);
    this.buckets.set(bucket, state);
    return decision;
  }

  private sweep(now: number): void {
    for (const [key, state] of this.buckets) if (now - state.updatedAt >= 60_000) this.buckets.delete(key);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
