import type { Problem } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { addressBucket } from '../domain/client-address.js';
import type { BucketPolicy, RateDecision } from '../domain/token-bucket.js';
import type { RateLimiter } from '../rate-limit/limiter.js';

/**
 * A try held while identity is asked: `end(true)` when identity refused the credential (401), so
 * the try stays spent; `end(false)` for anything else (vouched for, timeout, 503), which gives it
 * back. Ending twice does nothing.
 */
export type Attempt = { ok: true; end: (refused: boolean) => void } | { ok: false; problem: Problem };

/**
 * The lookups of one address on this replica: those reading its bucket and those holding a try
 * while identity is asked, and the callers waiting for a holder to end.
 */
class Asking {
  reading = 0;
  holding = 0;
  /** Holders ended so far, to tell whether one did while the bucket was being read. */
  ends = 0;
  private waiters: Array<() => void> = [];

  get idle(): boolean {
    return this.reading === 0 && this.holding === 0;
  }

  oneEnded(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  ended(): void {
    this.holding--;
    this.ends++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Resolves false after `ms`, or true as soon as `signal` does; the timer does not outlive it. */
async function within(signal: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([signal.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function busy(): { ok: false; problem: Problem } {
  return {
    ok: false,
    problem: problem('service_unavailable', 'Too many verifications from this address at once; retry.', {
      retryAfter: 1,
    }),
  };
}

/**
 * How many credentials from one client address may fail verification per minute. A well-formed
 * key is easy to make (its CRC-32 checksum is public), so without this a flood of distinct keys
 * would each cost identity a request and fill the in-flight allowance that legitimate misses need.
 *
 * Only identity's refusals (401) spend the budget. A lookup holds a try while identity is asked,
 * so a burst of distinct credentials cannot all be asked before the first refusal is recorded,
 * and gives it back unless identity refused. A lookup that finds every try left held by lookups
 * of its address in flight here waits for one of them to end rather than being refused: a valid
 * credential is answered 429 only when refusals spent the tries (or, with shared buckets, when
 * lookups in flight on other replicas hold them at that instant).
 */
export class FailureBudget {
  private readonly asking = new Map<string, Asking>();

  constructor(
    private readonly limiter: RateLimiter,
    /** `unknown-key` or `unknown-session`: the bucket is `<name>:<address>`. */
    private readonly name: string,
    private readonly policy: BucketPolicy,
  ) {}

  /**
   * A try for one lookup, or the 429 of a spent budget (identity is then not asked). Waits at most
   * `maxWaitMs` for tries held by other lookups (each ends within identity's timeout), then 503.
   */
  async attempt(client: string, maxWaitMs: number): Promise<Attempt> {
    const bucket = this.bucket(client);
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const asking = this.enter(bucket);
      const ends = asking.ends;
      const held = await this.limiter.hold(bucket, this.policy);
      const decision = held.decision;
      asking.reading--;
      if (decision.allowed) {
        asking.holding++;
        return { ok: true, end: this.holder(bucket, asking, held.giveBack) };
      }
      this.leave(bucket, asking);
      // A holder ended while the bucket was read: its try may be back already, so read again.
      if (asking.ends !== ends) continue;
      // Reads of one bucket are answered in the order they were made, so whoever holds a try now
      // took it before this read. With no holder, refusals spent the budget.
      if (asking.holding === 0) return { ok: false, problem: this.refusal(decision) };
      const left = deadline - Date.now();
      if (left <= 0 || !(await within(asking.oneEnded(), left))) return busy();
    }
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

  private enter(bucket: string): Asking {
    let asking = this.asking.get(bucket);
    if (!asking) this.asking.set(bucket, (asking = new Asking()));
    asking.reading++;
    return asking;
  }

  private leave(bucket: string, asking: Asking): void {
    if (asking.idle && this.asking.get(bucket) === asking) this.asking.delete(bucket);
  }

  private holder(bucket: string, asking: Asking, giveBack: () => void): (refused: boolean) => void {
    let ended = false;
    return (refused) => {
      if (ended) return;
      ended = true;
      // Given back before the waiters wake, so the read each of them makes next sees it.
      if (!refused) giveBack();
      asking.ended();
      this.leave(bucket, asking);
    };
  }

  private bucket(client: string): string {
    return `${this.name}:${addressBucket(client)}`;
  }
}
