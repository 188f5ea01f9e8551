import { describe, expect, it } from '@jest/globals';
import { perMinute } from '../../src/domain/token-bucket.js';
import { grantLease, LEASE_MS, leaseLive, spendLease } from '../../src/domain/token-lease.js';

describe('token leases', () => {
  const policy = perMinute(600);

  it('keeps the rest of a grant after the token its call used, for LEASE_MS', () => {
    const lease = grantLease(undefined, 5, 100, policy, 1_000);
    expect(lease).toEqual({ spare: 4, level: 100, expiresAt: 1_000 + LEASE_MS, policy });
    expect(leaseLive(lease, policy, 1_000 + LEASE_MS - 1)).toBe(true);
    expect(leaseLive(lease, policy, 1_000 + LEASE_MS)).toBe(false);
    // A single token leaves nothing to lease.
    expect(grantLease(undefined, 1, 100, policy, 1_000)).toBeUndefined();
  });

  it('spends one token a call, counting what it holds as remaining, until none is left', () => {
    const lease = grantLease(undefined, 3, 100, policy, 0)!;
    expect(spendLease(lease)).toMatchObject({ allowed: true, limit: 600, remaining: 101 });
    expect(spendLease(lease)).toMatchObject({ allowed: true, remaining: 100 });
    expect(leaseLive(lease, policy, 1)).toBe(false);
  });

  it('adds a grant to what is left of a live lease under the same policy only', () => {
    const lease = grantLease(undefined, 4, 100, policy, 0);
    expect(grantLease(lease, 3, 90, policy, 10)).toMatchObject({ spare: 5, level: 90 });
    expect(grantLease(lease, 3, 90, policy, LEASE_MS)).toMatchObject({ spare: 2 });
    expect(grantLease(lease, 3, 90, perMinute(60), 10)).toMatchObject({ spare: 2 });
    expect(leaseLive(lease, perMinute(60), 10)).toBe(false);
  });
});
