import type { Problem } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { addressBucket } from '../domain/client-address.js';
import type { BucketPolicy, RateDecision } from '../domain/token-bucket.js';
import type { RateLimiter } from '../rate-limit/limiter.js';

/**
 * How many credentials from one client address may fail verification per minute. A well-formed
 * key is easy to make (its CRC-32 checksum is public), so without this a flood of distinct keys
 * would each cost identity a request and fill the in-flight allowance that legitimate misses need.
 * A try is taken before identity is asked and given back when identity vouches for the credential,
 * so only unknown, revoked or expired credentials spend it.
 */
export class FailureBudget {
  constructor(
    private readonly limiter: RateLimiter,
    /** `unknown-key` or `unknown-session`: the bucket is `<name>:<address>`. */
    private readonly name: string,
    private readonly policy: BucketPolicy,
  ) {}

  take(client: string): RateDecision | Promise<RateDecision> {
    return this.limiter.take(this.bucket(client), this.policy);
  }

  giveBack(client: string): void {
    this.limiter.giveBack(this.bucket(client), this.policy);
  }

  /** The 429 of a spent budget. */
  refusal(decision: RateDecision): Problem {
    const wait = decision.retryAfterS;
    return problem(
      'rate_limit',
      `Too many invalid credentials from this address (${this.policy.capacity} a minute); retry in ${wait} s.`,
      { retryAfter: wait },
    );
  }

  private bucket(client: string): string {
    return `${this.name}:${addressBucket(client)}`;
  }
}
