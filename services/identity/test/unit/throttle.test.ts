import { describe, expect, it } from '@jest/globals';
import {
  afterFailure,
  checkThrottle,
  keyChurnWait,
  useQuota,
  withoutOneFailure,
  type ThrottleState,
} from '../../src/domain/throttle.js';

const policy = { delayAfter: 5, lockAfter: 10, lockSeconds: 900 };
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);

function fail(times: number, start: ThrottleState | undefined = undefined, now = t0) {
  let state = start;
  for (let i = 0; i < times; i++) state = afterFailure(state, policy, now);
  return state!;
}

describe('sign-in throttling', () => {
  it('lets four failures pass freely', () => {
    expect(checkThrottle(fail(4), t0)).toEqual({ allowed: true });
  });

  it('delays exponentially from the fifth failure', () => {
    expect(checkThrottle(fail(5), t0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(checkThrottle(fail(6), t0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(checkThrottle(fail(9), t0)).toEqual({ allowed: false, retryAfterSeconds: 16 });
    expect(checkThrottle(fail(9), at(16))).toEqual({ allowed: true });
  });

  it('locks for 15 minutes at the tenth consecutive failure', () => {
    const locked = fail(10);
    expect(checkThrottle(locked, at(899))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(checkThrottle(locked, at(900))).toEqual({ allowed: true });
  });

  it('forgets a counter idle longer than the lock', () => {
    const old = fail(9);
    expect(afterFailure(old, policy, at(901)).failures).toBe(1);
    expect(afterFailure(old, policy, at(60)).failures).toBe(10);
  });

  it('takes back a provisional failure, and the wait it started', () => {
    expect(withoutOneFailure(fail(1), policy)).toEqual({
      failures: 0,
      lastFailureAt: t0,
      blockedUntil: null,
    });
    const delayed = withoutOneFailure(fail(5), policy);
    expect(delayed.failures).toBe(4);
    expect(checkThrottle(delayed, t0)).toEqual({ allowed: true });
    // Another attempt's failure keeps its own wait: 9 failures wait 16 s from the last one.
    expect(checkThrottle(withoutOneFailure(fail(10), policy), t0)).toEqual({
      allowed: false,
      retryAfterSeconds: 16,
    });
  });
});

describe('quotas (sign-ups per client address, key creations per account)', () => {
  const quota = { limit: 3, windowSeconds: 3600 };
  function use(times: number, now = t0) {
    let state: ThrottleState | undefined;
    for (let i = 0; i < times; i++) {
      const decision = useQuota(state, quota, now);
      if (!decision.allowed) throw new Error(`use ${i + 1} refused`);
      state = decision.state;
    }
    return state;
  }

  it('allows the limit within a window, then tells how long until the window ends', () => {
    const state = use(3);
    expect(useQuota(state, quota, at(600))).toEqual({ allowed: false, retryAfterSeconds: 3000 });
  });

  it('starts a new window once the first one is over', () => {
    const decision = useQuota(use(3), quota, at(3600));
    expect(decision).toEqual({
      allowed: true,
      state: { failures: 1, lastFailureAt: at(3600), blockedUntil: null },
    });
  });

  it('counts uses from the window of the first one, not from the last', () => {
    const state = use(2);
    const third = useQuota(state, quota, at(3000));
    expect(third.allowed && third.state).toEqual({ failures: 3, lastFailureAt: t0, blockedUntil: at(3600) });
  });
});

describe('key churn', () => {
  const quota = { limit: 3, windowSeconds: 3600 };

  it('never holds back creations when fewer keys than the limit were revoked in the window', () => {
    expect(keyChurnWait([], quota, t0)).toBe(0);
    expect(keyChurnWait([at(-10), at(-20)], quota, t0)).toBe(0);
  });

  it('holds back the creation after the limit of revocations until the oldest of them leaves the window', () => {
    expect(keyChurnWait([at(-100), at(-10), at(-20)], quota, t0)).toBe(3500);
    expect(keyChurnWait([at(-100), at(-10), at(-20)], quota, at(3500))).toBe(0);
  });

  it('counts no revocation older than the window', () => {
    expect(keyChurnWait([at(-3600), at(-3700), at(-10), at(-20)], quota, t0)).toBe(0);
  });

  it('waits for the limit-th newest revocation when there are more', () => {
    expect(keyChurnWait([at(-5), at(-50), at(-500), at(-1000)], quota, t0)).toBe(3100);
  });
});
