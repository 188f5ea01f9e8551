import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cuttableLink, waitFor, type CuttableLink } from '@meridian/bus/testing';
import { createLogger } from '@meridian/observability';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import type { BucketPolicy } from '../../src/domain/token-bucket.js';
import type { WithinDecision } from '../../src/adapters/rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter.js';
import { MAX_LEASE } from '../../src/domain/token-lease.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Two tokens that do not refill within the test, so every count below is exact. */
const TWO: BucketPolicy = { capacity: 2, refillPerMs: 1e-12 };

describe('RedisRateLimiter with Redis going away and coming back', () => {
  let link: CuttableLink;
  let limiter: RedisRateLimiter;

  beforeAll(async () => {
    link = await cuttableLink(REDIS_URL);
    const url = `redis://127.0.0.1:${new URL(link.url).port}`;
    limiter = new RedisRateLimiter(url, `test:${randomUUID()}:`, createLogger('test', { level: 'silent' }));
    await waitFor(() => limiter.shared, { what: 'Redis connected' });
  });

  afterAll(async () => {
    await limiter?.close();
    await link?.close();
  });

  it('gives a held token back to the store it was taken from', async () => {
    const fromRedis = await limiter.hold('b', TWO);
    expect(fromRedis.decision).toMatchObject({ allowed: true, remaining: 1 });

    link.cut();
    await waitFor(() => !limiter.shared, { what: 'Redis lost' });
    const fromReplica = await limiter.hold('b', TWO);
    expect(fromReplica.decision).toMatchObject({ allowed: true, remaining: 1 });
    expect((await limiter.hold('b', TWO)).decision.allowed).toBe(true);
    // Taken from Redis: not given to this replica's bucket, which stays empty.
    fromRedis.giveBack();
    expect((await limiter.hold('b', TWO)).decision.allowed).toBe(false);

    link.restore();
    await waitFor(() => limiter.shared, { what: 'Redis connected again' });
    expect((await limiter.hold('b', TWO)).decision).toMatchObject({ allowed: true, remaining: 0 });
    // Taken from this replica while Redis was away: not added to the shared bucket.
    fromReplica.giveBack();
    expect((await limiter.hold('b', TWO)).decision.allowed).toBe(false);
  });

  it('takes the account-wide bucket only when the own one allows, shared by the replicas', async () => {
    const prefix = `test:${randomUUID()}:`;
    const replicas = [0, 1].map(
      () => new RedisRateLimiter(REDIS_URL, prefix, createLogger('test', { level: 'silent' })),
    );
    const [a, b] = replicas as [RedisRateLimiter, RedisRateLimiter];
    await waitFor(() => a.shared && b.shared, { what: 'Redis connected' });
    const ONE: BucketPolicy = { capacity: 1, refillPerMs: 1e-12 };
    const within = (r: RedisRateLimiter, key: string) =>
      r.takeWithin(key, ONE, 'retired:x', 'account:x', TWO);
    try {
      const first = await within(a, 'k1');
      expect(first.own).toMatchObject({ allowed: true, remaining: 0 });
      expect(first.account).toMatchObject({ allowed: true, remaining: 1 });
      // The key's own bucket refuses on the other replica: nothing is taken from the account's.
      expect(await within(b, 'k1')).toEqual({ own: expect.objectContaining({ allowed: false }) });
      expect((await within(b, 'k2')).account).toMatchObject({ allowed: true, remaining: 0 });
      const third = await within(a, 'k3');
      expect(third.own.allowed).toBe(true);
      expect(third.account?.allowed).toBe(false);
      // A new key starts from what the revoked keys of the account left.
      await a.retire('k1', 'retired:x', ONE);
      expect((await within(b, 'k4')).own.allowed).toBe(false);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });

  it('applies a plan changed under a shared bucket at once, keeping what was spent', async () => {
    const SMALL: BucketPolicy = { capacity: 3, refillPerMs: 1e-12 };
    const LARGE: BucketPolicy = { capacity: 10, refillPerMs: 2e-12 };
    const key = `plan:${randomUUID()}`;
    const account = `account:${randomUUID()}`;
    for (let i = 0; i < 2; i++) await limiter.takeWithin(key, SMALL, key, account, SMALL);
    const after = await limiter.takeWithin(key, LARGE, key, account, LARGE);
    expect(after.own).toMatchObject({ allowed: true, remaining: 7 });
    expect(after.account).toMatchObject({ allowed: true, remaining: 7 });
    expect((await limiter.hold(key, SMALL)).decision).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('starts a new key where the revoked keys of its account left the shared budget', async () => {
    const other = new RedisRateLimiter(
      REDIS_URL,
      `test:${randomUUID()}:`,
      createLogger('test', { level: 'silent' }),
    );
    await waitFor(() => other.shared, { what: 'Redis connected' });
    try {
      expect((await other.take('k1', TWO, 'retired:a')).remaining).toBe(1);
      expect((await other.take('k1', TWO, 'retired:a')).remaining).toBe(0);
      await other.retire('k1', 'retired:a', TWO);
      await other.retire('unused', 'retired:a', TWO);
      expect((await other.take('k2', TWO, 'retired:a')).allowed).toBe(false);
      expect((await other.take('k3', TWO, 'retired:b')).remaining).toBe(1);
      expect((await other.take('k4', TWO)).remaining).toBe(1);
    } finally {
      await other.close();
    }
  });

  describe('batches of data calls', () => {
    const THREE: BucketPolicy = { capacity: 3, refillPerMs: 1e-12 };
    /** Calls that report the batch sizes, on a registry of their own. */
    const replica = async (prefix: string) => {
      const registry = new Registry();
      const r = new RedisRateLimiter(REDIS_URL, prefix, createLogger('test', { level: 'silent' }), registry);
      await waitFor(() => r.shared, { what: 'Redis connected' });
      const batches = async () => {
        const metric = await registry.getSingleMetricAsString('gateway_rate_limit_redis_batch_calls');
        const field = (name: string) => Number(new RegExp(`_${name} (\\d+)`).exec(metric)?.[1]);
        return { count: field('count'), calls: field('sum') };
      };
      return { r, batches };
    };
    const brief = (d: WithinDecision) => [
      d.own.allowed,
      d.own.remaining,
      d.account?.allowed ?? null,
      d.account?.remaining ?? null,
    ];

    it('applies the calls of one batch in their order, exactly, across two keys and one account', async () => {
      const { r, batches } = await replica(`test:${randomUUID()}:`);
      try {
        // Two tokens a key, three for the account; made in one turn of the event loop.
        const keys = ['k1', 'k2', 'k1', 'k2', 'k1', 'k2'];
        const decisions = await Promise.all(
          keys.map((key) => r.takeWithin(key, TWO, undefined, 'account:a', THREE)),
        );
        expect(await batches()).toEqual({ count: 1, calls: 6 });
        expect(decisions.map(brief)).toEqual([
          [true, 1, true, 2],
          [true, 1, true, 1],
          [true, 0, true, 0],
          // Its own bucket allowed (and is spent), the account's refused.
          [true, 0, false, 0],
          // Own buckets empty: the account is not asked.
          [false, 0, null, null],
          [false, 0, null, null],
        ]);
        // What the batch wrote is what the next call (a batch of one) reads.
        expect(brief(await r.takeWithin('k3', TWO, undefined, 'account:a', THREE))).toEqual([
          true,
          1,
          false,
          0,
        ]);
        expect(await batches()).toEqual({ count: 2, calls: 7 });
        expect(brief(await r.takeWithin('k1', TWO, undefined, 'account:b', THREE))).toEqual([
          false,
          0,
          null,
          null,
        ]);
      } finally {
        await r.close();
      }
    });

    it('keeps the account-wide count exact when two replicas send batches at once', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await replica(prefix), await replica(prefix)];
      try {
        const many: BucketPolicy = { capacity: 100, refillPerMs: 1e-12 };
        const seven: BucketPolicy = { capacity: 7, refillPerMs: 1e-12 };
        const calls = [a, b].flatMap(({ r }, n) =>
          Array.from({ length: 10 }, (_, i) =>
            r.takeWithin(`k${n}-${i % 3}`, many, undefined, 'account', seven),
          ),
        );
        const decisions = await Promise.all(calls);
        expect(decisions.filter((d) => d.account?.allowed).length).toBe(7);
        expect(decisions.every((d) => d.own.allowed)).toBe(true);
        expect((await a.batches()).calls).toBe(10);
        expect((await b.batches()).calls).toBe(10);
      } finally {
        await Promise.all([a.r.close(), b.r.close()]);
      }
    });

    it('leases a busy bucket: a script call per lease, never more admitted than the bucket holds', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await replica(prefix), await replica(prefix)];
      try {
        const thousand: BucketPolicy = { capacity: 1_000, refillPerMs: 1e-12 };
        const roomy: BucketPolicy = { capacity: 1_000_000, refillPerMs: 1e-12 };
        // Two replicas, one key, a few calls at a time on each: 800 calls, then 1 200 more, against
        // 1 000 tokens.
        const run = async ({ r }: { r: RedisRateLimiter }, rounds: number) => {
          const out: WithinDecision[] = [];
          for (let round = 0; round < rounds; round++)
            out.push(
              ...(await Promise.all(
                Array.from({ length: 5 }, () => r.takeWithin('busy', thousand, undefined, 'acct', roomy)),
              )),
            );
          return out;
        };
        const first = (await Promise.all([run(a, 80), run(b, 80)])).flat();
        expect(first.every((d) => d.own.allowed && d.account?.allowed)).toBe(true);
        // While tokens are many, most calls are answered from a lease: far fewer script calls.
        const sent = (await a.batches()).calls + (await b.batches()).calls;
        expect(sent).toBeLessThan(800 / 4);
        const decisions = [...first, ...(await Promise.all([run(a, 120), run(b, 120)])).flat()];
        const admitted = decisions.filter((d) => d.own.allowed && d.account?.allowed).length;
        // Every token a lease held was taken from the shared bucket first: never more than it holds;
        // at most what the two leases held at the end is left unspent.
        expect(admitted).toBeLessThanOrEqual(1_000);
        expect(admitted).toBeGreaterThanOrEqual(1_000 - 2 * MAX_LEASE);
        // Spent: both replicas refuse, from Redis.
        expect((await a.r.takeWithin('busy', thousand, undefined, 'acct', roomy)).own.allowed).toBe(false);
        expect((await b.r.takeWithin('busy', thousand, undefined, 'acct', roomy)).own.allowed).toBe(false);
      } finally {
        await Promise.all([a.r.close(), b.r.close()]);
      }
    });

    it("drops a revoked key's lease, and spends none under another policy", async () => {
      const prefix = `test:${randomUUID()}:`;
      const { r, batches } = await replica(prefix);
      try {
        const big: BucketPolicy = { capacity: 1_000, refillPerMs: 1e-12 };
        const other: BucketPolicy = { capacity: 2_000, refillPerMs: 1e-12 };
        expect((await r.takeWithin('k', big, undefined, 'acct', big)).own.remaining).toBeLessThan(999);
        // From the lease: no script call, and the remaining count includes what the lease holds.
        const leased = await r.takeWithin('k', big, undefined, 'acct', big);
        expect(leased.own).toMatchObject({ allowed: true, remaining: 998 });
        expect(await batches()).toEqual({ count: 1, calls: 1 });
        // A plan that changed asks Redis again.
        await r.takeWithin('k', other, undefined, 'acct', big);
        expect(await batches()).toEqual({ count: 2, calls: 2 });
        await r.takeWithin('k', big, undefined, 'acct', big);
        await r.retire('k', 'retired', big);
        await r.takeWithin('k', big, undefined, 'acct', big);
        expect((await batches()).count).toBe(4);
      } finally {
        await r.close();
      }
    });

    it("falls back to the replica's buckets for a whole batch whose script fails, writing nothing", async () => {
      const prefix = `test:${randomUUID()}:`;
      const { r, batches } = await replica(prefix);
      const raw = new Redis(REDIS_URL);
      try {
        // A key of the wrong type makes the script fail before it writes anything.
        await raw.set(`${prefix}broken`, 'not a bucket');
        const decisions = await Promise.all(
          ['k1', 'broken', 'k1', 'k1'].map((key) => r.takeWithin(key, TWO, undefined, 'account:a', THREE)),
        );
        expect(await batches()).toEqual({ count: 1, calls: 4 });
        // The replica's buckets, in the same order: k1 has two tokens there, the account three.
        expect(decisions.map(brief)).toEqual([
          [true, 1, true, 2],
          [true, 1, true, 1],
          [true, 0, true, 0],
          [false, 0, null, null],
        ]);
        expect(await raw.exists(`${prefix}k1`, `${prefix}account:a`)).toBe(0);
        // The next batch without the broken key is shared again, its buckets untouched by the failed one.
        expect(brief(await r.takeWithin('k1', TWO, undefined, 'account:a', THREE))).toEqual([
          true,
          1,
          true,
          2,
        ]);
      } finally {
        await raw.quit();
        await r.close();
      }
    });
  });
});
