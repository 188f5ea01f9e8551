import { describe, expect, it } from '@jest/globals';
import { SeenAssertions } from '../../src/domain/client-address.js';

describe('the client-address assertions a replica believed', () => {
  const now = Date.parse('2026-12-02T01:00:00Z');
  const in60 = Math.floor(now / 1000) + 60;

  it('believes a nonce once while it is valid, and forgets it once its assertion expired', () => {
    const seen = new SeenAssertions();
    expect(seen.first('nonce-a', in60, now)).toBe(true);
    expect(seen.first('nonce-a', in60, now + 1000)).toBe(false);
    expect(seen.first('nonce-b', in60, now + 1000)).toBe(true);
    // Expired, the assertion no longer verifies anyway: its nonce need not be kept.
    expect(seen.first('nonce-c', in60 + 30, now + 61_000)).toBe(true);
    expect(seen.first('nonce-a', in60 + 60, now + 61_000)).toBe(true);
  });

  it('keeps at most its cap of nonces, dropping the oldest first', () => {
    const seen = new SeenAssertions(2);
    expect(['n1', 'n2', 'n3'].map((n) => seen.first(n, in60, now))).toEqual([true, true, true]);
    expect(seen.first('n3', in60, now)).toBe(false);
    expect(seen.first('n1', in60, now)).toBe(true);
  });
});
