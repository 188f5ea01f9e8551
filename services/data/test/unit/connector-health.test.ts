import { describe, expect, it } from '@jest/globals';
import {
  afterPoll,
  backoffMs,
  initialHealth,
  isStale,
  retryAfterMs,
} from '../../src/domain/connector-health.js';

const schedule = { cadenceMs: 60_000, maxBackoffMs: 15 * 60_000 };

describe('a connector backs off on its own', () => {
  it('doubles the wait with each failure, within [cadence, ceiling], jittered', () => {
    expect(backoffMs(1, schedule, 0.999)).toBeLessThanOrEqual(120_000);
    expect(backoffMs(1, schedule, 0)).toBe(60_000);
    expect(backoffMs(3, schedule, 0.999)).toBeGreaterThan(backoffMs(2, schedule, 0.999));
    expect(backoffMs(50, schedule, 0.999)).toBeLessThanOrEqual(15 * 60_000);
    expect(backoffMs(50, schedule, 0)).toBeGreaterThanOrEqual(7.5 * 60_000);
  });

  it('polls again one cadence after a success and resets the failures', () => {
    const failed = afterPoll(
      initialHealth(0),
      { ok: false, kind: 'http_error', status: 500, message: 'x answered 500', at: 1000 },
      schedule,
      0.5,
    );
    expect(failed).toMatchObject({ state: 'failing', consecutiveFailures: 1, lastError: { status: 500 } });
    expect(failed.nextPollAt).toBeGreaterThan(1000 + 60_000);
    const ok = afterPoll(failed, { ok: true, rows: 4, at: 200_000 }, schedule, 0.5);
    expect(ok).toMatchObject({
      state: 'ok',
      consecutiveFailures: 0,
      lastSuccessAt: 200_000,
      nextPollAt: 260_000,
    });
  });

  it('honours a Retry-After longer than its own backoff, and waits an hour after a 451', () => {
    const limited = afterPoll(
      initialHealth(0),
      { ok: false, kind: 'rate_limited', status: 429, message: '429', retryAfterMs: 3_600_000, at: 0 },
      schedule,
      0.5,
    );
    expect(limited).toMatchObject({ state: 'rate_limited', nextPollAt: 3_600_000 });
    const banned = afterPoll(
      initialHealth(0),
      { ok: false, kind: 'rate_limited', status: 451, message: '451', at: 0 },
      schedule,
      0,
    );
    expect(banned.nextPollAt).toBe(3_600_000);
  });

  it('calls an empty answer empty, keeping the last success', () => {
    const ok = afterPoll(initialHealth(0), { ok: true, rows: 3, at: 10 }, schedule, 0);
    const empty = afterPoll(ok, { ok: true, rows: 0, at: 70_010 }, schedule, 0);
    expect(empty).toMatchObject({ state: 'empty', lastSuccessAt: 10, lastRows: 0 });
  });

  it('is stale after three cadences without rows, counted from start when it never had any', () => {
    const h = initialHealth(0);
    expect(isStale(h, 60_000, 0, 180_000)).toBe(false);
    expect(isStale(h, 60_000, 0, 180_001)).toBe(true);
    const ok = afterPoll(h, { ok: true, rows: 1, at: 500_000 }, schedule, 0);
    expect(isStale(ok, 60_000, 0, 600_000)).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:01:00 GMT', 0)).toBe(60_000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(retryAfterMs(null, 0)).toBeUndefined();
  });
});
