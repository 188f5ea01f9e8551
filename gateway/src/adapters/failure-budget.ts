import type { Problem } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { addressBucket } from '../domain/client-address.js';
import type { BucketPolicy, RateDecision } from '../domain/token-bucket.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * A try held while identity is asked: `end(true)` when identity refused the credential (401), so
 * the try stays spent; `end(false)` for anything else (vouched for, timeout, 503), which gives it
 * back. Ending twice does nothing.
 */
export type Attempt = { ok: true; end: (refused: boolean) => void } | { ok: false; problem: Problem };

/** A place in the queue of one address: `turn` resolves when a holder's end wakes it. */
interface Waiting {
  turn: Promise<void>;
  /** The wait ran out: leaves the queue, or passes the turn on if it came meanwhile. */
  giveUp: () => void;
}

/**
 * The lookups of one address on this replica: those reading its bucket, those holding a try
 * while identity is asked, and those queued for a holder to end. Each end wakes one waiter, so
 * an end costs one more read of the bucket, not one per waiter.
 */
class Asking {
  reading = 0;
  holding = 0;
  /** Holders ended so far, to tell whether one did while the bucket was being read. */
  ends = 0;
  private readonly waiters: Array<() => void> = [];

  get idle(): boolean {
    return this.reading === 0 && this.holding === 0 && this.waiters.length === 0;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** A woken waiter that must wait again goes back to the head: it has waited longest. */
  queue(again: boolean): Waiting {
    let wake!: () => void;
    const turn = new Promise<void>((resolve) => (wake = resolve));
    if (again) this.waiters.unshift(wake);
    else this.waiters.push(wake);
    const giveUp = () => {
      const at = this.waiters.indexOf(wake);
      if (at >= 0) this.waiters.splice(at, 1);
      else this.wakeNext();
    };
    return { turn, giveUp };
  }

  ended(): void {
    this.holding--;
    this.ends++;
    this.wakeNext();
  }

  wakeNext(): void {
    this.waiters.shift()?.();
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
 * lookups in flight on other replicas hold them at that instant). Waiters queue per address,
 * first come first woken, one per holder's end and at most the bucket's capacity of them; past
 * that a lookup is answered 503 at once.
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
    let woken = false;
    for (;;) {
      const asking = this.enter(bucket);
      const ends = asking.ends;
      const held = await this.limiter.hold(bucket, this.policy);
      asking.reading--;
      if (held.decision.allowed) {
        asking.holding++;
        return { ok: true, end: this.holder(bucket, asking, held.giveBack) };
      }
      const outcome = this.denied(asking, asking.ends !== ends, deadline);
      if (outcome === 'wait') woken = await this.waitForEnd(asking, woken, deadline);
      this.leave(bucket, asking);
      if (outcome === 'spent') return { ok: false, problem: this.refusal(held.decision) };
      if (outcome === 'busy' || (outcome === 'wait' && !woken)) return busy();
    }
  }

  /** What a lookup the bucket refused does next: read again, wait for a holder, or answer. */
  private denied(asking: Asking, holderEnded: boolean, deadline: number): 'read' | 'wait' | 'spent' | 'busy' {
    const late = deadline <= Date.now();
    // A holder ended while the bucket was read: its try may be back already. Checked against the
    // deadline too, so a lookup whose reads keep overlapping holders' ends still answers in time.
    if (holderEnded) return late ? 'busy' : 'read';
    // Reads of one bucket are answered in the order they were made, so whoever holds a try now
    // took it before this read. With no holder, refusals spent the budget; the next waiter, if
    // any, reads again and learns it too.
    if (asking.holding === 0) {
      asking.wakeNext();
      return 'spent';
    }
    // At most as many waiters as the bucket holds tries, each woken by one holder's end.
    return late || asking.waiting >= this.policy.capacity ? 'busy' : 'wait';
  }

  /** Queues for a holder's end; false when the deadline comes first. */
  private async waitForEnd(asking: Asking, again: boolean, deadline: number): Promise<boolean> {
    const waiting = asking.queue(again);
    const woken = await within(waiting.turn, deadline - Date.now());
    if (!woken) waiting.giveUp();
    return woken;
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
      // Given back before the next waiter wakes, so the read it makes sees it.
      if (!refused) giveBack();
      asking.ended();
      this.leave(bucket, asking);
    };
  }

  private bucket(client: string): string {
    return `${this.name}:${addressBucket(client)}`;
  }
}
