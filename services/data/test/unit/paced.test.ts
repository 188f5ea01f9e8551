import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { paced } from '../../src/adapters/connectors/paced.js';

describe('paced requests (the connectors within an upstream rate limit)', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('starts one request per spacing and never more than the concurrency at once', async () => {
    // Fake timers (performance.now included): on a loaded machine the process can be descheduled
    // between the pacer taking a start and fn reading the clock, which real time would count as pacing.
    jest.useFakeTimers();
    const starts: number[] = [];
    let inFlight = 0;
    let most = 0;
    const run = paced([1, 2, 3, 4, 5, 6], { concurrency: 2, spacingMs: 40 }, async () => {
      starts.push(performance.now());
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    });
    await jest.advanceTimersByTimeAsync(1_000);
    await run;
    expect(starts).toHaveLength(6);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(40);
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
