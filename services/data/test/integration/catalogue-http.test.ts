import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { allMetrics, findMetric, LEGACY_ROUTES } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import type { RequestListener } from 'node:http';
import { recordedClose } from '../../src/jobs/spot/market-replay.js';
import { ingestPerpRange } from '../../src/jobs/derivatives/perp-replay.js';
import { loadRecordedFeeds } from '../../src/jobs/feeds/recorded-feeds.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { ingestBars, MINUTE, recordedWindow } from '../support/recorded.js';

/** The recorded minute played as "now" for the spot bars: the last recorded hour of the depeg week. */
const RECORDED_NOW = Date.parse('2023-03-14T23:00:00Z');
const HOUR = 60 * MINUTE;

/** Every metric of the catalogue through HTTP, on every recording the service ships. */
describe('the catalogue over HTTP', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  const get = (path: string) => request(app).get(path).set(headers);
  const live = allMetrics().filter((h) => h.metric.status === 'live');
  const pathOf = (h: (typeof live)[number]) =>
    `${h.product.category}/${h.product.product}/${h.metric.metric}`;

  beforeAll(async () => {
    db = await migratedDatabase('data_catalogue_http');
    const deps = testDeps(db);
    const nowMinute = Math.floor(Date.now() / MINUTE) * MINUTE;
    for (const { market, bars } of recordedWindow(
      RECORDED_NOW - 26 * HOUR,
      RECORDED_NOW,
      nowMinute - RECORDED_NOW,
    ))
      await ingestBars(db.db, market.venue, market.symbol, bars);
    // The perpetuals as the market replay plays them (on its own looped clock).
    await ingestPerpRange(deps.ingestor, recordedClose, nowMinute - HOUR, nowMinute);
    await loadRecordedFeeds(deps, new Date());
    app = testApp(deps);
    headers = await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'acct_c', key_id: 'key_c' });
  });
  afterAll(() => db.drop());

  it('series=true answers rows where the catalogue offers a series, and 400 naming the metric elsewhere', async () => {
    const withSeries = live.filter((h) => h.metric.series).map(pathOf);
    const without = live.filter((h) => !h.metric.series).map(pathOf);
    expect(without).toHaveLength(24);
    for (const path of withSeries) {
      const res = await get(`/v1/data/${path}?series=true`);
      expect([path, res.status, Array.isArray(res.body.data)]).toEqual([path, 200, true]);
      expect([path, typeof res.body.meta.has_more]).toEqual([path, 'boolean']);
    }
    for (const path of without) {
      const res = await get(`/v1/data/${path}?series=true`);
      expect([path, res.status, res.body.error_category, res.body.errors?.[0]?.path]).toEqual([
        path,
        400,
        'validation_failed',
        'query.series',
      ]);
      expect(res.body.detail).toContain(path);
      // series=false (or none) is the ordinary read.
      expect([path, (await get(`/v1/data/${path}?series=false`)).status]).toEqual([path, 200]);
    }
  });

  it('lists the series capability and the cadence in numbers in GET /v1/catalog', async () => {
    const res = await get('/v1/catalog');
    const metrics = res.body.data.categories.flatMap(
      (c: {
        products: { metrics: { path: string; series: boolean; cadence: string; cadence_ms?: number }[] }[];
      }) => c.products.flatMap((p) => p.metrics),
    );
    const byPath = new Map(metrics.map((m: { path: string }) => [m.path, m]));
    expect(byPath.get('/v1/data/crypto/spot/reference_price')).toMatchObject({ series: false });
    expect(byPath.get('/v1/data/crypto/spot/trades')).toMatchObject({
      series: true,
      cadence: 'real-time tick',
    });
    expect(byPath.get('/v1/data/crypto/futures/funding')).toMatchObject({
      series: false,
      cadence: 'about 60 s polled',
      cadence_ms: 60_000,
      max_age_ms: 180_000,
    });
    expect(byPath.get('/v1/data/fx/spot/change_24h')).toMatchObject({
      cadence: 'daily, ECB business days, about 16:00 CET',
      cadence_ms: 86_400_000,
      max_age_ms: 5 * 86_400_000,
    });
    expect(byPath.get('/v1/data/sports/tennis/match_result')).toMatchObject({ series: true });
  });

  it('answers every object metric in the unit the catalogue states', async () => {
    const objects = live.filter((h) => h.metric.value_shape === 'object');
    const units = [];
    for (const hit of objects) {
      const res = await get(`/v1/data/${pathOf(hit)}`);
      expect([pathOf(hit), res.status]).toEqual([pathOf(hit), 200]);
      if (res.body.data.unit !== undefined) units.push([pathOf(hit), res.body.data.unit]);
    }
    expect(units.length).toBeGreaterThanOrEqual(20);
    expect(units).toEqual(
      units.map(([path]) => [
        path,
        findMetric(...(path!.split('/') as [string, string, string]))!.metric.unit,
      ]),
    );
  });

  /** The answer without what depends on the instant of the request (the age of the data and its score). */
  function timeless(body: { meta?: Record<string, unknown> }) {
    if (!body.meta) return body;
    const { as_of: _asOf, staleness_ms: _staleness, confidence: _confidence, ...meta } = body.meta;
    return { ...body, meta };
  }

  it('every legacy route answers what its generic route answers, with and without series', async () => {
    const routes = Object.entries(LEGACY_ROUTES);
    expect(routes.length).toBeGreaterThanOrEqual(53);
    for (const [legacy, key] of routes) {
      const hit = findMetric(...(key.split('/') as [string, string, string]))!;
      const queries = hit.metric.series && hit.metric.value_shape !== 'series' ? ['', '?series=true'] : [''];
      for (const query of queries) {
        const generic = await get(`/v1/data/${key}${query}`);
        const old = await get(`${legacy}${query}`);
        const expected = hit.metric.status === 'live' ? 200 : 404;
        expect([legacy, query, generic.status, old.status]).toEqual([legacy, query, expected, expected]);
        expect([legacy, query, timeless(old.body)]).toEqual([legacy, query, timeless(generic.body)]);
      }
    }
  });
});
