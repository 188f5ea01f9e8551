import { catalogFor, MAX_RESPONSE_TOKENS } from '@meridian/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { callerHeaders } from '@meridian/http-kit/testing';
import type { RequestListener } from 'node:http';
import type { Deps } from '../../src/app.js';
import type { MigratedDatabase } from '../support/db.js';
import { MINUTE } from '../support/recorded.js';
import { depegService, depegWindow, HOUR, NOW_MINUTE, withoutMarks } from '../support/depeg.js';

/**
 * crypto/spot over HTTP on the recorded USDC depeg shifted to now: the reference price, the legacy
 * routes, the 24 h metrics, trades, refusals, who may buy, and the venues the price leaves out. The
 * OHLCV roll-ups, pages and token budgets: spot-http-ohlcv.test.ts.
 */
describe('crypto/spot over HTTP, on the recorded USDC depeg shifted to now', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let deps: Deps;
  let headers: Record<string, string>;
  const window = depegWindow();
  const get = (path: string) => request(app).get(path).set(headers);

  beforeAll(async () => {
    ({ db, deps, app, headers } = await depegService('data_spot_http', window));
  });
  afterAll(() => db.drop());

  const closeAt = (venue: string, symbol: string) => {
    const bars = window.find((w) => w.market.venue === venue && w.market.symbol === symbol)!.bars;
    return bars[bars.length - 1]!.close;
  };

  it('reference_price converts the USDC legs at their own derived rate: not dragged by the depeg', async () => {
    const res = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(res.status).toBe(200);
    const usd = closeAt('binanceus', 'BTC-USD');
    const krakenUsdc = closeAt('kraken', 'BTC-USDC');
    // The USDC books really were several percent away from the USD one.
    expect(krakenUsdc / usd - 1).toBeGreaterThan(0.03);
    expect(Math.abs(res.body.data.price / usd - 1)).toBeLessThan(0.005);
    const usdc = res.body.data.quote_rates.find((r: { quote: string }) => r.quote === 'USDC');
    expect(usdc.usd_per_unit).toBeLessThan(0.97);
    // Every market is either priced in USD or excluded with its reason.
    const used = res.body.data.venues.map((v: { venue: string; symbol: string }) => `${v.venue}:${v.symbol}`);
    const excluded = res.body.provenance.excluded.map(
      (v: { venue: string; symbol: string }) => `${v.venue}:${v.symbol}`,
    );
    expect([...used, ...excluded].sort()).toEqual([
      'binanceus:BTC-USD',
      'binanceus:BTC-USDC',
      'binanceus:BTC-USDT',
      'kraken:BTC-USDC',
    ]);
    expect(used).toContain('binanceus:BTC-USD');
    expect(res.body.meta.confidence).toBeGreaterThan(0);
    expect(res.body.meta.confidence).toBeLessThanOrEqual(1);
    expect(res.body.provenance.sources[0]).toEqual(
      expect.objectContaining({
        venue: expect.any(String),
        ts: expect.any(String),
        symbol: expect.any(String),
      }),
    );
    expect(res.body.provenance.method).toMatch(/MAD/);
  });

  it('the legacy route answers what the generic route answers', async () => {
    const generic = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    const legacy = await get('/v1/reference_price?entity=BTC-USD');
    expect(legacy.status).toBe(200);
    expect(legacy.body.data).toEqual(generic.body.data);
    expect(legacy.body.provenance).toEqual(generic.body.provenance);
    const g = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=kraken&interval=1h');
    const l = await get('/v1/ohlcv?entity=BTC-USD&source=kraken&interval=1h');
    expect(l.body).toEqual(g.body);
    const kg = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDC&source=kraken&interval=4h');
    const kl = await get('/v1/ohlcv?entity=BTC-USDC&source=kraken&interval=4h');
    expect(kl.status).toBe(200);
    expect(kl.body.data.map(withoutMarks)).toEqual(kg.body.data.map(withoutMarks));
  });

  it('24 h metrics state their window and agree with the recorded bars', async () => {
    const range = await get('/v1/data/crypto/spot/range_24h?entity=BTC-USD&source=binanceus');
    expect(range.status).toBe(200);
    const bars = window.find((w) => w.market.venue === 'binanceus' && w.market.symbol === 'BTC-USD')!.bars;
    const day = bars.filter((b) => b.ts > bars[bars.length - 1]!.ts - 24 * HOUR);
    expect(range.body.data.high).toBe(Math.max(...day.map((b) => b.high)));
    expect(range.body.data.low).toBe(Math.min(...day.map((b) => b.low)));
    expect(range.body.data.window.bars).toBe(day.length);
    for (const metric of [
      'change_24h',
      'range_24h',
      'vwap_24h',
      'realized_volatility_24h',
      'trade_count_24h',
    ]) {
      const res = await get(`/v1/data/crypto/spot/${metric}?entity=BTC-USD`);
      expect([metric, res.status]).toEqual([metric, 200]);
      expect(res.body.data.window.from).toEqual(expect.any(String));
      expect(res.body.meta.as_of).toEqual(expect.any(String));
      expect(res.body.provenance.method).toMatch(/24 h/);
    }
    const change = await get('/v1/data/crypto/spot/change_24h?entity=BTC-USD&source=binanceus');
    const before = bars.filter((b) => b.ts <= bars[bars.length - 1]!.ts - 24 * HOUR).pop()!;
    expect(change.body.data.change_pct).toBeCloseTo(
      (bars[bars.length - 1]!.close / before.close - 1) * 100,
      10,
    );
    const vol = await get('/v1/data/crypto/spot/realized_volatility_24h?entity=BTC-USD');
    expect(vol.body.data.annualized_pct).toBeCloseTo(vol.body.data.stdev_1m_pct * Math.sqrt(525_600), 8);
    const count = await get('/v1/data/crypto/spot/trade_count_24h?entity=BTC-USD');
    const kraken = window.find((w) => w.market.venue === 'kraken')!.bars;
    const newest = Math.max(...window.flatMap((w) => w.bars.map((b) => b.ts)));
    expect(count.body.data.trade_count).toBe(
      kraken.filter((b) => b.ts >= newest + MINUTE - 24 * HOUR).reduce((s, b) => s + b.trade_count!, 0),
    );
    expect(count.body.provenance.excluded.map((e: { venue: string }) => e.venue)).toContain('binanceus');
  });

  it('trades: normalised taker prints, paged', async () => {
    // More prints than fit the smallest budget, so it truncates.
    const TRADES = 40;
    const { ingest } = await import('../../src/flows/ingest.js');
    const rows = Array.from({ length: TRADES }, (_, i) => ({
      trade_id: `t${i}`,
      ts: new Date(NOW_MINUTE - (TRADES - i) * 1000).toISOString(),
      price: 20000 + i,
      size: 0.01,
      taker_side: (i % 2 ? 'sell' : 'buy') as 'buy' | 'sell',
    }));
    await ingest(db.db, { kind: 'trades', source: 'kraken', symbol: 'BTC-USDC', rows }, catalogFor('replay'));
    const res = await get(
      `/v1/data/crypto/spot/trades?entity=BTC-USDC&source=kraken&max_response_tokens=${MAX_RESPONSE_TOKENS.min}`,
    );
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThanOrEqual(MAX_RESPONSE_TOKENS.min * 4);
    const kept = res.body.data.length as number;
    expect(kept).toBeLessThan(TRADES);
    expect(res.body.data.at(-1)).toMatchObject({ trade_id: `t${TRADES - 1}`, venue: 'kraken' });
    const next = await get(
      `/v1/data/crypto/spot/trades?entity=BTC-USDC&source=kraken&cursor=${encodeURIComponent(res.body.meta.next_cursor)}`,
    );
    expect(next.body.data.map((r: { trade_id: string }) => r.trade_id)).toEqual(
      Array.from({ length: TRADES - kept }, (_, i) => `t${i}`),
    );
    expect(next.body.meta.has_more).toBe(false);
  });

  it('refuses: planned, unknown path, bad entity, bad interval, bad and foreign cursors', async () => {
    const planned = await get('/v1/data/crypto/spot/spread?entity=BTC-USD');
    expect([planned.status, planned.body.error_category]).toEqual([404, 'not_yet_available']);
    const unknown = await get('/v1/data/crypto/spot/moon_phase');
    expect([unknown.status, unknown.body.error_category]).toEqual([404, 'route_not_found']);
    const entity = await get('/v1/data/crypto/spot/reference_price?entity=DOGE-EUR');
    expect([entity.status, entity.body.errors[0].path]).toEqual([400, 'query.entity']);
    const interval = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=7m');
    expect([interval.status, interval.body.errors[0].path]).toEqual([400, 'query.interval']);
    const page = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus');
    const cursor = page.body.meta.next_cursor as string;
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    const bad = await get(
      `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&cursor=${encodeURIComponent(tampered)}`,
    );
    expect([bad.status, bad.body.error_category]).toEqual([400, 'invalid_cursor']);
    const foreign = await get(
      `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=5m&cursor=${encodeURIComponent(cursor)}`,
    );
    expect([foreign.status, foreign.body.error_category]).toEqual([400, 'invalid_cursor']);
  });

  it('sells live metrics only to a caller the gateway vouched for, whatever path reached it', async () => {
    const path = '/v1/data/crypto/spot/reference_pric%65?entity=BTC-USD';
    const anonymous = await request(app)
      .get(path)
      .set(await callerHeaders({}));
    expect([anonymous.status, anonymous.body.error_category]).toEqual([401, 'unauthorized']);
    const free = await callerHeaders({ plan: 'free', auth: 'api_key', account_id: 'a2', key_id: 'k2' });
    const chain = await request(app).get('/v1/data/crypto/options/chai%6E?entity=BTC').set(free);
    expect([chain.status, chain.body.error_category]).toEqual([403, 'tier_forbidden']);
    expect(chain.body.detail).toContain('crypto/options/chain needs the pro plan');
    const paid = await request(app)
      .get(path)
      .set(await callerHeaders({ auth: 'x402' }));
    expect(paid.status).toBe(200);
    const planned = await request(app)
      .get('/v1/data/crypto/spot/spread')
      .set(await callerHeaders({}));
    expect(planned.body.error_category).toBe('not_yet_available');
  });

  it('catalog lists every metric, live and planned', async () => {
    const res = await get('/v1/catalog');
    const metrics = res.body.data.categories.flatMap(
      (c: { products: { metrics: { path: string; status: string }[] }[] }) =>
        c.products.flatMap((p) => p.metrics),
    );
    expect(
      metrics.find((m: { path: string }) => m.path === '/v1/data/crypto/spot/reference_price').status,
    ).toBe('live');
    expect(metrics.filter((m: { status: string }) => m.status === 'planned').length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('a venue 5 % off the others is excluded and named', async () => {
    const usd = window.find((w) => w.market.venue === 'binanceus' && w.market.symbol === 'BTC-USD')!.bars;
    const off = usd.slice(-30).map((b) => ({
      ...b,
      open: b.open * 1.05,
      high: b.high * 1.05,
      low: b.low * 1.05,
      close: b.close * 1.05,
    }));
    // Each venue votes once; deep in the depeg kraken's USDC book, converted at the USDC rate of the
    // other venues, sits 2.6 % above binanceus, so two more honest USD venues make the honest cluster.
    // Through the service's own ingestor, so that the cached reference price is dropped as in production.
    for (const [source, bars] of [
      ['coinbase', off],
      ['bitstamp', usd.slice(-30)],
      ['gemini', usd.slice(-30)],
    ] as const)
      await deps.ingestor.ingest({
        kind: 'candles',
        source,
        symbol: 'BTC-USD',
        interval: '1m',
        rows: bars.map((b) => ({ ...b, ts: new Date(b.ts).toISOString() })),
      });
    const res = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(res.body.provenance.excluded).toContainEqual(
      expect.objectContaining({
        venue: 'coinbase',
        symbol: 'BTC-USD',
        reason: expect.stringMatching(/^outlier: 5\.\d\d %/),
      }),
    );
    expect(res.body.meta.venues).not.toContain('coinbase');
    expect(Math.abs(res.body.data.price / usd[usd.length - 1]!.close - 1)).toBeLessThan(0.005);
  });
  it('a direct USDC-USD market prices USDC outright', async () => {
    const usd = window.find((w) => w.market.venue === 'binanceus' && w.market.symbol === 'BTC-USD')!.bars;
    await deps.ingestor.ingest({
      kind: 'candles',
      source: 'kraken',
      symbol: 'USDC-USD',
      interval: '1m',
      rows: usd.slice(-5).map((b) => ({
        ts: new Date(b.ts).toISOString(),
        open: 0.95,
        high: 0.95,
        low: 0.95,
        close: 0.95,
        volume: 1000,
      })),
    });
    const res = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(res.body.data.quote_rates).toContainEqual({
      quote: 'USDC',
      usd_per_unit: 0.95,
      derived_from: ['kraken:USDC-USD'],
    });
    expect(res.body.data.venues.map((v: { symbol: string }) => v.symbol)).not.toContain('USDC-USD');
  });
});
