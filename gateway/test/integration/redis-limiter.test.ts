import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cuttableLink, waitFor, type CuttableLink } from '@meridian/bus/testing';
import { createLogger } from '@meridian/observability';
import type { BucketPolicy } from '../../src/domain/token-bucket.js';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter.js';

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
});
