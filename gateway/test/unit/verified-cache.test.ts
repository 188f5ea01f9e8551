import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type Bus } from '@meridian/bus';
import type { Plan } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { FailureBudget } from '../../src/auth/failure-budget.js';
import { VerifiedCache, type Verification } from '../../src/auth/verified-cache.js';
import { perMinute } from '../../src/domain/token-bucket.js';
import { MemoryRateLimiter } from '../../src/rate-limit/limiter.js';

interface Vouched {
  account_id: string;
  plan: Plan;
  key_id: string;
}

const SUBJECT = 'rpc.test.key.verify.v1';

/** Identity's part over the in-process bus: vouches for the keys it knows, 401 for the rest. */
async function fakeIdentity(bus: Bus, known: Map<string, Vouched>, asked: string[]) {
  return bus.serve<{ key: string }, Vouched>(SUBJECT, 'identity', async ({ key }) => {
    asked.push(key);
    const value = known.get(key);
    return value
      ? { ok: true, data: { ...value } }
      : { ok: false, problem: problem('unauthorized', 'unknown key') };
  });
}

describe('VerifiedCache', () => {
  let bus: Bus;
  let now: number;
  let limiter: MemoryRateLimiter;
  const known = new Map<string, Vouched>();
  let asked: string[];

  const cache = (budget?: FailureBudget) =>
    new VerifiedCache<Vouched>({
      bus,
      subject: SUBJECT,
      request: (key) => ({ key }),
      idOf: (v) => v.key_id,
      parse: (data) => data as Vouched,
      ttlMs: 60_000,
      maxEntries: 100,
      negativeTtlMs: 15_000,
      maxNegative: 100,
      maxInFlight: 256,
      budget,
      now: () => now,
    });

  beforeEach(async () => {
    bus = createMemoryBus({ name: 'verified-cache-test' });
    now = 1_000_000;
    limiter = new MemoryRateLimiter(() => now);
    asked = [];
    known.clear();
    for (let i = 0; i < 5; i++) known.set(`good-${i}`, { account_id: 'a1', plan: 'free', key_id: `k${i}` });
    await fakeIdentity(bus, known, asked);
  });

  afterEach(async () => {
    await bus.close();
  });

  it('asks identity for no more unknown credentials from one address than its budget', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(5)));
    const flood = await Promise.all(
      Array.from({ length: 12 }, (_, i) => keys.verify(`bad-${i}`, () => '203.0.113.9')),
    );
    expect(asked).toHaveLength(5);
    const statuses = flood.map((r) => (r.ok ? 200 : r.problem.status));
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    const refused = flood.filter((r): r is Extract<Verification<Vouched>, { ok: false }> => !r.ok);
    expect(refused.at(-1)!.problem).toMatchObject({
      status: 429,
      error_category: 'rate_limit',
      retryable: true,
      retry_after: 12,
    });
    // Another address has its own budget.
    expect(await keys.verify('bad-elsewhere', () => '198.51.100.4')).toMatchObject({
      problem: { status: 401 },
    });
    expect(await keys.verify('good-0', () => '198.51.100.4')).toMatchObject({ ok: true });
    expect(asked).toHaveLength(7);
    // The budget refills at its rate per minute: one try every 12 s here.
    now += 12_000;
    expect(await keys.verify('bad-later', () => '203.0.113.9')).toMatchObject({ ok: false });
    expect(asked).toHaveLength(8);
    expect(await keys.verify('bad-too-soon', () => '203.0.113.9')).toMatchObject({
      ok: false,
      problem: { status: 429 },
    });
  });

  it('gives the try back for a credential identity vouches for', async () => {
    const keys = cache(new FailureBudget(limiter, 'unknown-key', perMinute(2)));
    for (let i = 0; i < 5; i++) {
      expect(await keys.verify(`good-${i}`, () => '203.0.113.9')).toMatchObject({ ok: true });
    }
    expect(await keys.verify('bad-1', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-2', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(await keys.verify('bad-3', () => '203.0.113.9')).toMatchObject({ problem: { status: 429 } });
    // A refusal it remembers costs neither identity nor the budget.
    expect(await keys.verify('bad-1', () => '203.0.113.9')).toMatchObject({ problem: { status: 401 } });
    expect(asked).toEqual(['good-0', 'good-1', 'good-2', 'good-3', 'good-4', 'bad-1', 'bad-2']);
  });

  it('verifies everything again after clear(), and does not cache an answer asked for before it', async () => {
    const keys = cache();
    expect(await keys.verify('good-0')).toMatchObject({ ok: true });
    expect(keys.verify('good-0')).toMatchObject({ ok: true });
    known.delete('good-0');
    keys.clear();
    expect(await keys.verify('good-0')).toMatchObject({ ok: false, problem: { status: 401 } });

    const inFlight = keys.verify('good-1');
    keys.clear();
    expect(await inFlight).toMatchObject({ ok: true });
    expect(keys.verify('good-1')).toBeInstanceOf(Promise);
  });
});
