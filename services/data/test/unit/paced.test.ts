import { describe, expect, it } from '@jest/globals';
import { paced } from '../../src/adapters/connectors/paced.js';

describe('paced requests (the connectors within an upstream rate limit)', () => {
  it('starts one request per spacing and never more than the concurrency at once', async () => {
    const starts: number[] = [];
    let inFlight = 0;
    let most = 0;
    await paced([1, 2, 3, 4, 5, 6], { concurrency: 2, spacingMs: 40 }, async () => {
      starts.push(Date.now());
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    });
    expect(starts).toHaveLength(6);
    // Each start at least 40 ms after the one before (a millisecond of slack: the test reads the clock inside fn).
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(38);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('stops starting new ones at the first failure, and throws it', async () => {
    const seen: number[] = [];
    const run = paced([1, 2, 3, 4, 5], { concurrency: 1, spacingMs: 0 }, async (n) => {
      seen.push(n);
      if (n === 2) throw new Error('rate limited');
    });
    await expect(run).rejects.toThrow('rate limited');
    expect(seen).toEqual([1, 2]);
  });
});
