import { describe, expect, it } from '@jest/globals';
import {
  accountBucket,
  accountPolicies,
  perMinute,
  planPolicy,
  rateLimitHeaders,
  rebase,
  retiredKeysBucket,
  returnToken,
  takeToken,
  type BucketState,
} from '../../src/domain/token-bucket.js';

describe('token bucket', () => {
  it('admits a whole minute as a burst, then refuses with the wait for one token', () => {
    const policy = planPolicy('basic');
    let state: BucketState | undefined;
    const decisions = [];
    for (let i = 0; i < 61; i++) {
      const r = takeToken(state, 1000, policy);
      state = r.state;
      decisions.push(r.decision);
    }
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions[0]).toMatchObject({ limit: 60, remaining: 59, resetS: 1 });
    expect(decisions[60]).toMatchObject({ allowed: false, remaining: 0, retryAfterS: 1, resetS: 60 });
  });

  it('refills continuously at limit/60 per second', () => {
    const policy = planPolicy('free');
    let state: BucketState | undefined;
    for (let i = 0; i < 10; i++) state = takeToken(state, 0, policy).state;
    expect(takeToken(state, 5_000, policy).decision.allowed).toBe(false);
    const later = takeToken(state, 6_000, policy);
    expect(later.decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(takeToken(later.state, 6_000, policy).decision.retryAfterS).toBe(6);
  });

  it('writes the RateLimit triple and the draft structured fields', () => {
    const { decision } = takeToken(undefined, 0, planPolicy('basic'));
    expect(rateLimitHeaders(decision)).toEqual({
      'ratelimit-limit': '60',
      'ratelimit-remaining': '59',
      'ratelimit-reset': '1',
      'ratelimit-policy': '"per-key";q=60;w=60',
      ratelimit: '"per-key";r=59;t=1',
    });
  });

  it('takes a token back, never above the capacity', () => {
    const policy = perMinute(2);
    const first = takeToken(undefined, 0, policy);
    const second = takeToken(first.state, 0, policy);
    expect(takeToken(second.state, 0, policy).decision.allowed).toBe(false);
    const back = returnToken(second.state, 0, policy);
    expect(back.tokens).toBe(1);
    expect(takeToken(back, 0, policy).decision.allowed).toBe(true);
    expect(returnToken(first.state, 60_000, policy).tokens).toBe(2);
    expect(returnToken(undefined, 0, policy).tokens).toBe(2);
  });
});

describe('the account-wide ceiling', () => {
  it('is the multiple of each plan per-key limit, in its own bucket per account', () => {
    const ceiling = accountPolicies({ free: 10, basic: 60, pro: 300, ultra: 1200 }, 1.5);
    expect(ceiling.free).toEqual({ capacity: 15, refillPerMs: 15 / 60_000 });
    expect(ceiling.ultra.capacity).toBe(1800);
    expect(accountBucket('acct_1')).toBe('account:acct_1');
    expect(accountBucket('acct_1')).not.toBe(retiredKeysBucket('acct_1'));
  });
});

describe('a plan changed under a bucket', () => {
  const free = planPolicy('free');
  const basic = planPolicy('basic');

  it('keeps what was spent and gives the rest of the larger plan at once', () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 4; i++) state = takeToken(state, 0, free).state;
    const next = takeToken(state, 0, basic);
    expect(next.decision).toMatchObject({ allowed: true, limit: 60, remaining: 55 });
  });

  it('keeps what was spent on a smaller plan, never below empty', () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 55; i++) state = takeToken(state, 0, basic).state;
    expect(rebase(state!, free)).toBe(0);
    expect(takeToken(state, 0, free).decision.allowed).toBe(false);
    expect(rebase({ tokens: 58, updatedAt: 0, capacity: 60 }, free)).toBe(8);
  });

  it('leaves a state of unknown size as it is', () => {
    expect(rebase({ tokens: 3, updatedAt: 0 }, basic)).toBe(3);
  });
});
