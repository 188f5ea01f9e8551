import type { RequestListener } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { pricesSchema } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startBilling, type Billing } from './harness.js';

describe('GET /v1/billing/prices', () => {
  let billing: Billing;
  let app: RequestListener;

  beforeAll(async () => {
    billing = await startBilling('billing_prices', { PLAN_MONTHLY_PRICES: 'pro=99000000' });
    app = billing.app;
  });

  afterAll(async () => billing?.close());

  it('answers an anonymous caller the price list in the envelope', async () => {
    const res = await request(app)
      .get('/v1/billing/prices')
      .set(await callerHeaders());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data', 'meta', 'provenance']);
    const prices = pricesSchema.parse(res.body.data);
    expect(prices.plans.find((p) => p.plan === 'pro')).toMatchObject({
      rate_limit_per_minute: 300,
      monthly_price_atomic: 99_000_000,
      monthly_price_usd: 99,
    });
    expect(prices.pay_per_call).toMatchObject({
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    });
    expect(res.body.provenance.method).toContain('price table');
  });

  it('says, under replay (the default), what the data service plays, before anyone pays', async () => {
    const res = await request(app)
      .get('/v1/billing/prices')
      .set(await callerHeaders());
    expect(res.body.data.pay_per_call.replay).toMatch(
      /^This deployment serves replay .*Hand-written samples/,
    );
  });

  it('says nothing of replay when the data service polls live upstreams', async () => {
    const live = await startBilling('billing_prices_live', { INGEST_MODE: 'live' });
    try {
      const res = await request(live.app)
        .get('/v1/billing/prices')
        .set(await callerHeaders());
      expect(res.status).toBe(200);
      expect(res.body.data.pay_per_call).not.toHaveProperty('replay');
    } finally {
      await live.close();
    }
  });

  it('refuses a request that did not come through the gateway', async () => {
    const res = await request(app).get('/v1/billing/prices');
    expect(res.status).toBe(401);
    expect(res.type).toBe('application/problem+json');
  });
});
