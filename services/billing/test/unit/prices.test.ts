import { describe, expect, it } from '@jest/globals';
import { PLAN_RATE_LIMITS, X402_PRICES, allMetrics, findMetric, pricesSchema } from '@meridian/contracts';
import { parseConfig } from '../../src/config.js';
import { priceList, priceTableOf } from '../../src/domain/prices.js';

const live = allMetrics().filter((h) => h.metric.status === 'live');

describe('the price list', () => {
  it('has the shape of the contract, each plan with the limit the gateway enforces', () => {
    const prices = pricesSchema.parse(priceList(new Map()));
    expect(prices.plans.map((p) => [p.plan, p.rate_limit_per_minute])).toEqual([
      ['free', 10],
      ['basic', 60],
      ['pro', 300],
      ['ultra', 1200],
    ]);
    for (const p of prices.plans) expect(p.rate_limit_per_minute).toBe(PLAN_RATE_LIMITS[p.plan]);
  });

  it('says what each plan adds from the catalogue gates, ultra reading every live metric', () => {
    const [free, basic, pro, ultra] = priceList(new Map()).plans;
    expect(basic!.adds).toEqual(
      expect.arrayContaining([
        'crypto/spot/trades',
        'sports/basketball/box_score',
        'sports/tennis/live_score',
      ]),
    );
    expect(basic!.adds).not.toContain('crypto/spot/reference_price');
    expect(pro!.adds).toEqual([
      'crypto/options/chain',
      'crypto/options/implied_vol_index',
      'crypto/options/put_call_oi_ratio',
      'crypto/options/open_interest',
    ]);
    expect(ultra!.adds).toEqual([
      'crypto/futures/funding',
      'crypto/futures/mark_price',
      'crypto/futures/basis',
      'crypto/futures/last_price',
      'crypto/futures/taker_flow',
    ]);
    expect(free!.adds).toContain('crypto/spot/reference_price');
    expect(free!.live_metrics).toBe(free!.adds.length);
    expect(ultra!.live_metrics).toBe(live.length);
    const added = [free, basic, pro, ultra].flatMap((p) => p!.adds);
    expect(new Set(added).size).toBe(live.length);
    expect(added).not.toContain('crypto/spot/spread');
  });

  it('charges the x402 prices of the contracts, series-shaped metrics always at the series price', () => {
    const { pay_per_call } = priceList(new Map());
    expect(pay_per_call.prices).toEqual([
      expect.objectContaining({ kind: 'read', amount_atomic: X402_PRICES.read, usd: 0.01 }),
      expect.objectContaining({ kind: 'series', amount_atomic: X402_PRICES.series, usd: 0.02 }),
    ]);
    expect(pay_per_call.series_metrics).toEqual(['crypto/spot/ohlcv', 'crypto/spot/trades']);
    expect(findMetric('crypto', 'spot', 'ohlcv')!.metric.value_shape).toBe('series');
  });

  it('shows the free plan at 0, a paid plan at its price in the table and null when the table has none', () => {
    const plans = priceList(new Map([['plan:basic', 29_000_000]])).plans;
    expect(plans.map((p) => [p.plan, p.monthly_price_atomic, p.monthly_price_usd])).toEqual([
      ['free', 0, 0],
      ['basic', 29_000_000, 29],
      ['pro', null, null],
      ['ultra', null, null],
    ]);
  });
});

describe('the price table', () => {
  it('holds every price the platform charges, read back by the list', () => {
    const { AUDIT_TIER_PRICES, PLAN_MONTHLY_PRICES, RUN_PRICES, BOOKING_PRICES } = parseConfig({
      INTERNAL_AUTH_SECRET: 'x'.repeat(32),
      AUDIT_TIER_PRICES: 'audit_secure=150000000',
    });
    const table = priceTableOf({
      plans: PLAN_MONTHLY_PRICES,
      auditTiers: AUDIT_TIER_PRICES,
      runs: RUN_PRICES,
      bookings: BOOKING_PRICES,
    });
    expect(table.get('audit:audit_secure')).toBe(150_000_000);
    expect(table.get('run:audit_base')).toBe(9_000_000);
    expect(table.get('booking:consulting')).toBe(150_000_000);
    expect(table.get('x402:read')).toBe(X402_PRICES.read);
    const list = pricesSchema.parse(priceList(table));
    expect(list.audit_subscriptions.find((t) => t.tier === 'audit_secure')).toMatchObject({
      price_atomic: 150_000_000,
      price_usd: 150,
      period: 'month',
    });
    expect(list.analysis_runs.map((r) => r.tier)).toEqual(['audit_base', 'audit_secure', 'audit_review']);
    expect(list.consulting).toEqual([{ kind: 'consulting', price_atomic: 150_000_000, price_usd: 150 }]);
  });
});

describe('PLAN_MONTHLY_PRICES', () => {
  const config = (value?: string) =>
    parseConfig({
      INTERNAL_AUTH_SECRET: 'x'.repeat(32),
      ...(value === undefined ? {} : { PLAN_MONTHLY_PRICES: value }),
    });

  it('reads paid plans in atomic USDC, a plan left out keeping its default price', () => {
    expect(config().PLAN_MONTHLY_PRICES).toEqual({ basic: 19_000_000, pro: 49_000_000, ultra: 199_000_000 });
    expect(config('basic=29000000, ultra=499000000').PLAN_MONTHLY_PRICES).toEqual({
      basic: 29_000_000,
      pro: 49_000_000,
      ultra: 499_000_000,
    });
  });

  it('refuses a price for the free plan, an unknown plan and amounts that are not whole atomic units', () => {
    for (const bad of ['free=0', 'gold=1', 'basic=29.5', 'basic=-1', 'basic=', 'basic'])
      expect(() => config(bad)).toThrow(/PLAN_MONTHLY_PRICES: bad entry/);
  });
});

describe('RATE_LIMITS', () => {
  const config = (value?: string) =>
    parseConfig({
      INTERNAL_AUTH_SECRET: 'x'.repeat(32),
      ...(value === undefined ? {} : { RATE_LIMITS: value }),
    });

  it("publishes the gateway's override, so the list says what the edge enforces", () => {
    const { RATE_LIMITS } = config('ultra=5000');
    const plans = priceList(new Map(), RATE_LIMITS).plans;
    expect(plans.map((p) => p.rate_limit_per_minute)).toEqual([10, 60, 300, 5000]);
    expect(() => config('gold=1')).toThrow(/RATE_LIMITS: bad entry/);
  });
});
