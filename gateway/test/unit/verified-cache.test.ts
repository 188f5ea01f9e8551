import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type Bus } from '@meridian/bus';
import type { Plan } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { FailureBudget } from '../../src/adapters/failure-budget.js';
import { VerifiedCache, type Verification } from '../../src/adapters/verified-cache.js';
import { perMinute, type BucketPolicy, type RateDecision } from '../../src/domain/token-bucket.js';
import {
  MemoryRateLimiter,
  type HeldToken,
  type RateLimiter,
  type WithinDecision,
} from '../../src/adapters/rate-limiter.js';

interface Vouched {
  account_id: string;
  plan: Plan;
  key_id: string;
}

const SUBJECT = 'rpc.test.key.verify.v1';

/**
 * Identity's part over the in-process bus: vouches for the keys it knows, 401 for the rest; a
 * `down-` key gets 503 as from an identity that cannot answer, a `slow-` one no answer until
 * `answerSlow` resolves.
 */
async function fakeIdentity(
  bus: Bus,
  known: Map<string, Vouched>,
  asked: string[],
  answerSlow: Promise<void>,
) {
  return bus.serve<{ key: string }, Vouched>(SUBJECT, 'identity', async ({ key }) => {
    asked.push(key);
    if (key.startsWith('down-')) return { ok: false, problem: problem('service_unavailable', 'db down') };
    if (key.startsWith('slow-')) await answerSlow;
    const value = known.get(key);
    return value
      ? { ok: true, data: { ...value } }
      : { ok: false, problem: problem('unauthorized', 'unknown key') };
  });
}

describe('VerifiedCache', () => {
  let bus: Bus;
  let now: number;
  let limiter: MemoryRateLimiter;
  const known = new Map<string, Vouched>();
  let asked: string[];
  let answerSlow: () => void;

  const cache = (budget?: FailureBudget, rpcTimeoutMs?: number) =>
    new VerifiedCache<Vouched>({
      bus,
      subject: SUBJECT,
      request: (key) => ({ key }),
      idOf: (v) => v.key_id,
      parse: (data) => data as Vouched,
      ttlMs: 60_000,
      maxEntries: 100,
      negativeTtlMs: 15_000,
      maxNegative: 100,
      maxInFlight: 256,
      budget,
      rpcTimeoutMs,
      now: () => now,
    });

  beforeEach(async () => {
    bus = createMemoryBus({ name: 'verified-cache-test' });
    now = 1_000_000;
    limiter = new MemoryRateLimiter(() => now);
    asked = [];
    known.clear();
    for (let i = 0; i < 5; i++) known.set(`good-${i}`, { account_id: 'a1', plan: 'free', key_id: `k${i}` });
    await fakeIdentity(bus, known, asked, new Promise((resolve) => (answerSlow = resolve)));
  });

  afterEach(async () => {
    answerSlow();
    await bus.close();
  });

  it('asks identity for no more unknown credentials from one address than its budget', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(5)));
    const flood = await Promise.all(
      Array.from({ length: 12 }, (_, i) => keys.verify(`bad-${i}`, () => '203.0.113.9')),
    );
    expect(asked).toHaveLength(5);
    const statuses = flood.map((r) => (r.ok ? 200 : r.problem.status));
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    // Five held the tries and five waited for them; the two past that were told to retry.
    expect(statuses.filter((s) => s === 503)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = flood.filter((r): r is Extract<Verification<Vouched>, { ok: false }> => !r.ok);
    expect(refused.find((r) => r.problem.status === 429)!.problem).toMatchObject({
      status: 429,
      error_category: 'rate_limit',
      retryable: true,
      retry_after: 12,
    });
    // Another address has its own budget.
    expect(await keys.verify('bad-elsewhere', () => '198.51.100.4')).toMatchObject({
      problem: { status: 401 },
    });
    expect(await keys.verify('good-0', () => '198.51.100.4')).toMatchObject({ ok: true });
    expect(asked).toHaveLength(7);
    // The budget refills at its rate per minute: one try every 12 s here.
    now += 12_000;
    expect(await keys.verify('bad-later', () => '203.0.113.9')).toMatchObject({ ok: false });
    expect(asked).toHaveLength(8);
    expect(await keys.verify('bad-too-soon', () => '203.0.113.9')).toMatchObject({
      ok: false,
      problem: { status: 429 },
    });
  });

  it('gives the try back for a credential identity vouches for', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(2)));
    for (let i = 0; i < 5; i++) {
      expect(await keys.verify(`good-${i}`, () => '203.0.113.9')).toMatchObject({ ok: true });
    }
    expect(await keys.verify('bad-1', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-2', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-3', () => '203.0.113.9')).toMatchObject({ problem: { status: 429 } });
    // A refusal it remembers costs neither identity nor the budget.
    expect(await keys.verify('bad-1', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(asked).toEqual(['good-0', 'good-1', 'good-2', 'good-3', 'good-4', 'bad-1', 'bad-2']);
  });

  it('serves valid uncached credentials from an address with one try left, however many at once', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(5)));
    for (let i = 0; i < 4; i++) {
      expect(await keys.verify(`bad-${i}`, () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    }
    const valid = await Promise.all(
      Array.from({ length: 5 }, (_, i) => keys.verify(`good-${i}`, () => '203.0.113.9')),
    );
    expect(valid.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    // None of them spent the last try; the next refusal does.
    expect(await keys.verify('bad-4', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-5', () => '203.0.113.9')).toMatchObject({ problem: { status: 429 } });
    expect(asked).toHaveLength(10);
  });

  it('spends no try when identity fails to answer or times out', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(2)), 20);
    for (let i = 0; i < 4; i++) {
      expect(await keys.verify(`down-${i}`, () => '203.0.113.9')).toMatchObject({ problem: { status: 503 } });
    }
    const silent = await Promise.all(
      Array.from({ length: 4 }, (_, i) => keys.verify(`slow-${i}`, () => '203.0.113.9')),
    );
    expect(silent.map((r) => !r.ok && r.problem.status)).toEqual([503, 503, 503, 503]);
    // Neither outage was remembered as a refusal nor counted against the address.
    expect(await keys.verify('good-0', () => '203.0.113.9')).toMatchObject({ ok: true });
    expect(await keys.verify('bad-1', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-2', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-3', () => '203.0.113.9')).toMatchObject({ problem: { status: 429 } });
  });

  it('verifies everything again after clear(), and does not cache an answer asked for before it', async () => {
    const keys = cache();
    expect(await keys.verify('good-0')).toMatchObject({ ok: true });
    expect(keys.verify('good-0')).toMatchObject({ ok: true });
    known.delete('good-0');
    keys.clear();
    expect(await keys.verify('good-0')).toMatchObject({ ok: false, problem: { status: 401 } });

    const inFlight = keys.verify('good-1');
    keys.clear();
    expect(await inFlight).toMatchObject({ ok: true });
    expect(keys.verify('good-1')).toBeInstanceOf(Promise);
  });
});

/** Lets every callback already due run, so a waiting lookup is queued before a holder ends. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `promise` has settled by the time the callbacks already due have run. */
const pending = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  await settle();
  return !done;
};

/**
 * The limiter of one replica, counting the reads of a bucket; while `gate` is set, a read is
 * answered only once it resolves, so a test can end a holder while a lookup reads.
 */
class CountingLimiter implements RateLimiter {
  readonly kind = 'memory';
  reads = 0;
  gate: Promise<void> | undefined;
  private readonly inner = new MemoryRateLimiter(() => 1_000_000);

  take(bucket: string, policy: BucketPolicy): RateDecision {
    return this.inner.take(bucket, policy);
  }

  takeWithin(
    bucket: string,
    policy: BucketPolicy,
    startFrom: string | undefined,
    account: string,
    accountPolicy: BucketPolicy,
  ): WithinDecision {
    return this.inner.takeWithin(bucket, policy, startFrom, account, accountPolicy);
  }

  async hold(bucket: string, policy: BucketPolicy): Promise<HeldToken> {
    this.reads++;
    await this.gate;
    return this.inner.hold(bucket, policy);
  }

  retire(bucket: string, into: string, policy: BucketPolicy): Promise<void> {
    return this.inner.retire(bucket, into, policy);
  }

  async close(): Promise<void> {}
}

describe('FailureBudget', () => {
  const address = '203.0.113.9';
  let limiter: CountingLimiter;

  beforeEach(() => {
    limiter = new CountingLimiter();
  });

  const held = async (budget: FailureBudget) => {
    const attempt = await budget.attempt(address, 1000);
    if (!attempt.ok) throw new Error(`expected a try, got ${attempt.problem.status}`);
    return attempt;
  };

  it('lets a lookup wait for a held try: it gets the try when the holder is vouched for', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(1));
    const first = await held(budget);
    const waiting = budget.attempt(address, 5_000);
    expect(await pending(waiting)).toBe(true);
    first.end(false);
    expect(await waiting).toMatchObject({ ok: true });
  });

  it('answers 429 to the waiting lookup when identity refused the holder', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(1));
    const first = await held(budget);
    const waiting = budget.attempt(address, 5_000);
    expect(await pending(waiting)).toBe(true);
    first.end(true);
    first.end(false);
    expect(await waiting).toMatchObject({ ok: false, problem: { status: 429, retry_after: 60 } });
  });

  it('answers 503 retryable to a lookup whose wait for a held try runs out', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(1));
    await held(budget);
    expect(await budget.attempt(address, 20)).toMatchObject({
      ok: false,
      problem: { status: 503, retryable: true },
    });
    // Another address has its own tries.
    expect(await budget.attempt('198.51.100.4', 20)).toMatchObject({ ok: true });
  });

  it('wakes one waiter per holder end, first come first served', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(3));
    const holders = [await held(budget), await held(budget), await held(budget)];
    const waiters = [0, 1, 2].map(() => budget.attempt(address, 5_000));
    await settle();
    const reads = limiter.reads;
    holders[0]!.end(false);
    expect(await waiters[0]).toMatchObject({ ok: true });
    expect(await pending(waiters[1]!)).toBe(true);
    expect(await pending(waiters[2]!)).toBe(true);
    // One read for the one woken, not one per waiter.
    expect(limiter.reads).toBe(reads + 1);
    holders[1]!.end(false);
    expect(await waiters[1]).toMatchObject({ ok: true });
    expect(await pending(waiters[2]!)).toBe(true);
    holders[2]!.end(false);
    expect(await waiters[2]).toMatchObject({ ok: true });
  });

  it('answers 429 to every waiter once the last holder was refused, not 503 at the deadline', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(3));
    const [first, second, last] = [await held(budget), await held(budget), await held(budget)];
    first.end(true);
    second.end(true);
    const waiters = [0, 1, 2].map(() => budget.attempt(address, 5_000));
    await settle();
    // One end wakes one waiter; the one that learns the budget is spent tells the next.
    last.end(true);
    for (const waiting of waiters) expect(await waiting).toMatchObject({ problem: { status: 429 } });
  });

  it('queues no more waiters per address than the bucket holds tries, and answers 503 past them', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(2));
    const holders = [await held(budget), await held(budget)];
    const waiters = [0, 1].map(() => budget.attempt(address, 5_000));
    const over = budget.attempt(address, 5_000);
    expect(await pending(over)).toBe(false);
    expect(await over).toMatchObject({ ok: false, problem: { status: 503, retryable: true } });
    for (const holder of holders) holder.end(false);
    for (const waiting of waiters) expect(await waiting).toMatchObject({ ok: true });
  });

  it('passes a holder end to the next waiter when the one ahead of it gave up', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(2));
    const holders = [await held(budget), await held(budget)];
    const impatient = budget.attempt(address, 20);
    const patient = budget.attempt(address, 5_000);
    expect(await impatient).toMatchObject({ problem: { status: 503 } });
    holders[0]!.end(false);
    expect(await patient).toMatchObject({ ok: true });
    holders[1]!.end(false);
  });

  it('answers 503 at the deadline when a holder ended during the read, rather than reading again', async () => {
    const budget = new FailureBudget(limiter, 'unknown-key', perMinute(2));
    const holders = [await held(budget), await held(budget)];
    let open!: () => void;
    limiter.gate = new Promise((resolve) => (open = resolve));
    const reads = limiter.reads;
    const late = budget.attempt(address, 1);
    const calledBy = Date.now();
    holders[0]!.end(true);
    // Past its deadline (at most calledBy + 1) before its read is answered.
    while (Date.now() <= calledBy + 1) await settle();
    open();
    expect(await late).toMatchObject({ ok: false, problem: { status: 503 } });
    expect(limiter.reads).toBe(reads + 1);
    holders[1]!.end(false);
  });
});
