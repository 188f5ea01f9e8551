import { describe, expect, it } from '@jest/globals';
import { perMinute, retiredKeysBucket } from '../../src/domain/token-bucket.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limiter.js';

describe('MemoryRateLimiter', () => {
  const policy = perMinute(10);

  it('keeps no more buckets than its cap, however many addresses come', () => {
    const limiter = new MemoryRateLimiter(() => 0, 3);
    for (let i = 0; i < 50; i++) {
      limiter.take(`203.0.113.${i}`, policy);
      expect(limiter.size).toBeLessThanOrEqual(3);
    }
    // The three newest kept their take; the first comes back full.
    for (const i of [49, 48, 47]) expect(limiter.take(`203.0.113.${i}`, policy).remaining).toBe(8);
    expect(limiter.take('203.0.113.0', policy).remaining).toBe(9);
    expect(limiter.size).toBe(3);
  });

  it('evicts the oldest bucket first, a touch making a bucket young again', () => {
    const limiter = new MemoryRateLimiter(() => 0, 3, 0);
    for (const bucket of ['a', 'b', 'c']) limiter.take(bucket, policy);
    limiter.take('a', policy);
    limiter.take('d', policy);
    expect(limiter.size).toBe(3);
    // 'b' was the oldest: it comes back full; 'a' kept its two takes.
    expect(limiter.take('a', policy).remaining).toBe(7);
    expect(limiter.take('b', policy).remaining).toBe(9);
  });

  it('moves a bucket to the young end at most once per touch interval', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now, 3, 1_000);
    for (const bucket of ['a', 'b', 'c']) limiter.take(bucket, policy);
    // Touched again within the interval: 'a' keeps its place, so it is the one forgotten.
    now = 500;
    limiter.take('a', policy);
    limiter.take('d', policy);
    expect(limiter.take('a', policy).remaining).toBe(9);
    // ('a' came back full and pushed out 'b'.) Touched after the interval, 'c' moves to the young
    // end, so 'd' (placed at 500) is the one forgotten next.
    now = 1_000;
    limiter.take('c', policy);
    limiter.take('e', policy);
    expect(limiter.take('c', policy).remaining).toBe(7);
    expect(limiter.take('d', policy).remaining).toBe(9);
  });

  it('starts a new key of an account where its revoked keys left the budget, not full', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    const retired = retiredKeysBucket('acct-1');
    for (let i = 0; i < 10; i++) limiter.take('key-1', policy, retired);
    await limiter.retire('key-1', retired, policy);
    expect(limiter.take('key-2', policy, retired)).toMatchObject({ allowed: false, retryAfterS: 6 });
    // Another account, or the same one a minute later, starts full.
    expect(limiter.take('key-3', policy, retiredKeysBucket('acct-2')).remaining).toBe(9);
    now = 60_000;
    expect(limiter.take('key-4', policy, retired).remaining).toBe(9);
  });

  it('keeps the lower level when a fuller key is revoked after a spent one', async () => {
    const limiter = new MemoryRateLimiter(() => 0);
    const retired = retiredKeysBucket('acct-1');
    for (let i = 0; i < 10; i++) limiter.take('spent', policy, retired);
    limiter.take('fresh', policy);
    await limiter.retire('spent', retired, policy);
    await limiter.retire('fresh', retired, policy);
    await limiter.retire('never-used', retired, policy);
    expect(limiter.take('next', policy, retired).allowed).toBe(false);
  });
});
