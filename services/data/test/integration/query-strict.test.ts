import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { callerHeaders } from '@meridian/http-kit/testing';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { ingestBars, MINUTE, recordedWindow } from '../support/recorded.js';

const RECORDED = Date.parse('2023-03-09T12:00:00Z');
const SHIFT = Math.floor(Date.now() / MINUTE) * MINUTE - RECORDED;
const HOUR = 60 * MINUTE;

/** data-api-interface 4.1: a 200 answers the question asked; anything else is a 400 that says what would work. */
describe('the data endpoint takes exactly its parameters', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  const get = (path: string) => request(app).get(path).set(headers);

  beforeAll(async () => {
    db = await migratedDatabase('data_query_strict');
    app = testApp(testDeps(db));
    headers = await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'acct_q', key_id: 'key_q' });
    for (const { market, bars } of recordedWindow(RECORDED - 12 * HOUR, RECORDED, SHIFT))
      await ingestBars(db.db, market.venue, market.symbol, bars);
  });
  afterAll(() => db.drop());

  it('refuses an unknown parameter, naming it and the parameters the route takes', async () => {
    const res = await get('/v1/data/crypto/spot/reference_price?entty=BTC-USDT');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.errors[0].path).toBe('query.entty');
    expect(res.body.detail).toContain('"entty"');
    expect(res.body.detail).toContain(
      'entity, source, series, interval, fields, format, cursor, max_response_tokens',
    );
    const legacy = await get('/v1/reference_price?api_key=mk_live_secret');
    expect([legacy.status, legacy.body.errors[0].path]).toEqual([400, 'query.api_key']);
    expect(JSON.stringify(legacy.body)).not.toContain('mk_live_secret');
  });

  it('refuses any parameter on the catalogue and the demo, which take none', async () => {
    for (const path of ['/v1/catalog?category=crypto', '/v1/demo?entity=BTC-USD']) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain('this route takes no query parameter');
    }
    expect((await get('/v1/catalog')).status).toBe(200);
  });

  it('accepts entity= (empty) on a metric with no entity, refuses it where one is needed', async () => {
    const none = await get('/v1/data/absurd_cosmos/restless_earth/quakes_last_hour?entity=');
    expect(none.status).not.toBe(400);
    const needed = await get('/v1/data/fx/spot/reference_rate?entity=');
    expect([needed.status, needed.body.errors[0].path]).toEqual([400, 'query.entity']);
    expect(needed.body.detail).toContain('EUR-USD, GBP-USD, USD-JPY');
  });

  it('refuses a source that is not a venue of the product with the allowed venues, on every product', async () => {
    for (const path of [
      '/v1/data/crypto/spot/reference_price?source=coinbase',
      '/v1/data/crypto/spot/ohlcv?source=coinbase',
      '/v1/data/crypto/futures/mark_price?source=coinbase',
      '/v1/data/fx/spot/reference_rate?source=coinbase',
      '/v1/data/crypto/network/market_cap?source=coinbase',
    ]) {
      const res = await get(path);
      expect([path, res.status, res.body.errors?.[0]?.path]).toEqual([path, 400, 'query.source']);
      expect(res.body.detail).toMatch(/allowed: [a-z_]+/);
    }
    const spot = await get('/v1/data/crypto/spot/reference_price?source=coinbase');
    expect(spot.body.detail).toContain('allowed: binanceus, kraken');
  });

  it('refuses a combination the product cannot serve with what would work, as the catalogue says', async () => {
    const price = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USDT');
    expect([price.status, price.body.errors[0].path]).toEqual([400, 'query.entity']);
    expect(price.body.detail).toContain('answers BTC-USD only');
    const combined = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDT');
    expect(combined.status).toBe(400);
    expect(combined.body.detail).toContain('add source=binanceus');
    const venue = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=kraken');
    expect(venue.status).toBe(400);
    expect(venue.body.detail).toContain('source kraken lists BTC-USDC, not BTC-USD');
    expect((await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDT&source=binanceus')).status).toBe(200);
    const catalog = await get('/v1/catalog');
    const spot = catalog.body.data.categories
      .find((c: { category: string }) => c.category === 'crypto')
      .products.find((p: { product: string }) => p.product === 'spot');
    expect(spot.venue_entities).toEqual({
      binanceus: ['BTC-USD', 'BTC-USDT', 'BTC-USDC'],
      kraken: ['BTC-USDC'],
    });
    const metric = (name: string) => spot.metrics.find((m: { metric: string }) => m.metric === name);
    expect(metric('reference_price').entities).toEqual(['BTC-USD']);
    expect(metric('ohlcv').combined_entities).toEqual(['BTC-USD']);
  });

  it('keeps a cursor valid whether the default interval and entity are written out or implicit', async () => {
    const implicit = await get('/v1/data/crypto/spot/ohlcv?source=binanceus');
    expect(implicit.status).toBe(200);
    const cursor = encodeURIComponent(implicit.body.meta.next_cursor as string);
    const written = await get(
      `/v1/data/crypto/spot/ohlcv?source=binanceus&entity=BTC-USD&interval=1m&cursor=${cursor}`,
    );
    expect(written.status).toBe(200);
    const back = await get(`/v1/data/crypto/spot/ohlcv?source=binanceus&entity=BTC-USD&interval=1m`);
    const again = await get(
      `/v1/data/crypto/spot/ohlcv?source=binanceus&cursor=${encodeURIComponent(back.body.meta.next_cursor)}`,
    );
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(written.body.data);
  });

  it('refuses series=false on a series-only metric and series values other than true or false', async () => {
    const off = await get('/v1/data/crypto/spot/ohlcv?series=false');
    expect([off.status, off.body.errors[0].path]).toEqual([400, 'query.series']);
    expect(off.body.detail).toContain('answers a series only');
    const one = await get('/v1/data/crypto/network/market_cap?series=1');
    expect([one.status, one.body.errors[0].path]).toEqual([400, 'query.series']);
  });

  it('answers another method on a metric path 405 with Allow, and a trailing slash as the same metric', async () => {
    const post = await request(app).post('/v1/data/crypto/spot/ohlcv').set(headers).send({});
    expect([post.status, post.headers.allow, post.body.error_category]).toEqual([
      405,
      'GET, HEAD',
      'method_not_allowed',
    ]);
    const legacy = await request(app).delete('/v1/ohlcv').set(headers);
    expect([legacy.status, legacy.headers.allow]).toEqual([405, 'GET, HEAD']);
    const plain = await get('/v1/ohlcv?source=binanceus');
    const slashed = await get('/v1/ohlcv/?source=binanceus');
    expect(slashed.status).toBe(200);
    expect(slashed.body.data).toEqual(plain.body.data);
    expect((await get('/v1/data/crypto/spot/ohlcv/?source=binanceus')).body.data).toEqual(plain.body.data);
  });

  it('serves a stored venue the catalogue does not name yet with source=, and lists it among the allowed', async () => {
    const bar = {
      ts: Date.parse('2020-01-02T03:04:00Z'),
      open: 7000,
      high: 7010,
      low: 6990,
      close: 7005,
      volume: 3,
      trade_count: null,
    };
    await ingestBars(db.db, 'newvenue', 'BTC-USD', [bar]);
    const own = await get('/v1/data/crypto/spot/ohlcv?source=newvenue');
    expect([own.status, own.body.data.length]).toEqual([200, 1]);
    const other = await get('/v1/data/crypto/spot/ohlcv?source=coinbase');
    expect(other.status).toBe(400);
    expect(other.body.detail).toContain('allowed: binanceus, kraken, newvenue');
    const book = await get('/v1/data/crypto/spot/ohlcv?source=newvenue&entity=BTC-USDT');
    expect([book.status, book.body.detail]).toEqual([
      400,
      expect.stringContaining('source newvenue lists BTC-USD, not BTC-USDT'),
    ]);
  });
});
