import type { RequestListener } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createMemoryBus } from '@meridian/bus';
import { pricesSchema } from '@meridian/contracts';
import { migrateToLatest, openDatabase, type OpenDatabase } from '@meridian/db';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { TEST_INTERNAL_AUTH_SECRET, callerHeaders, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';

describe('GET /v1/billing/prices', () => {
  let database: TestDatabase;
  let opened: OpenDatabase<Database>;
  let app: RequestListener;

  beforeAll(async () => {
    database = await createTestDatabase('billing_prices');
    opened = openDatabase<Database>({ kind: 'pg', url: database.url, poolSize: 2 }, 'billing');
    await migrateToLatest(opened.db, 'billing', migrations);
    const logger = createLogger('billing-test', { level: 'silent' });
    app = createApp({
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        DATABASE_URL: database.url,
        PLAN_MONTHLY_PRICES: 'pro=99000000',
      }),
      db: opened.db,
      bus: createMemoryBus({ name: 'billing-test', logger }),
      logger,
      metrics: createMetrics('billing', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
    });
  });

  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

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
    expect(res.body.provenance.method).toContain('PLAN_MONTHLY_PRICES');
  });

  it('refuses a request that did not come through the gateway', async () => {
    const res = await request(app).get('/v1/billing/prices');
    expect(res.status).toBe(401);
    expect(res.type).toBe('application/problem+json');
  });
});
