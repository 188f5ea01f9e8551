import { catalogFor, MAX_RESPONSE_TOKENS } from '@meridian/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import type { Deps } from '../../src/app.js';
import { replayShift } from '../../src/domain/replay-clock.js';
import type { MigratedDatabase } from '../support/db.js';
import { loadedAt, recordedFeedsService, replayedOk } from '../support/feeds.js';

/**
 * Series reads (series=true) of the feed metrics through HTTP on the data service, answered from the
 * recordings replayed by loadRecordedFeeds into a fresh Postgres database: percent changes computed per
 * stored point, history ascending in time, truncation, cursors and max_response_tokens on every series.
 * The latest values: feeds-http.test.ts.
 */
describe('feed series over HTTP', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  let deps: Deps;

  beforeAll(async () => {
    ({ db, app, headers, deps } = await recordedFeedsService('data_feeds_series'));
  });
  afterAll(() => db.drop());

  const get = (path: string) => request(app).get(path).set(headers);
  const ok200 = (path: string) => replayedOk(get, path);

  it('fx/spot/change_24h with series=true answers the change per fixing in percent, not the stored rates', async () => {
    // Two older fixings before the recorded two (Mon 11th, Tue 12th), in the recording's replay time.
    const clock = replayShift('2024-11-14T15:10:00Z', loadedAt, 'day').clock;
    const rates: [string, number][] = [
      ['2024-11-11', 1.065],
      ['2024-11-12', 1.0623],
      ['2024-11-13', 1.0564],
      ['2024-11-14', 1.054],
    ];
    await deps.ingestor.ingest({
      kind: 'observations',
      source: 'ecb',
      rows: rates.slice(0, 2).map(([day, value]) => ({
        key: 'EUR-USD',
        metric: 'fx_reference_rate',
        ts: clock(`${day}T15:00:00Z`),
        value,
        payload: { cross: 'direct' },
      })),
    });
    const res = await get('/v1/data/fx/spot/change_24h?entity=EUR-USD&series=true');
    expect(res.status).toBe(200);
    // The oldest fixing has no previous one: it is a base, not a row.
    expect(res.body.data).toEqual(
      rates.slice(1).map(([day, rate], i) => ({
        ts: clock(`${day}T15:00:00Z`),
        value: expect.closeTo((rate / rates[i]![1] - 1) * 100, 6),
        rate,
        previous_rate: rates[i]![1],
        from: clock(`${rates[i]![0]}T15:00:00Z`),
      })),
    );
    expect(res.body.meta.returned).toBe(3);
    expect(res.body.provenance.method).toMatch(
      /Series: the metric's value \(in percent\) computed at every stored point/,
    );
    const latest = await ok200('/v1/data/fx/spot/change_24h?entity=EUR-USD');
    expect(latest.data).toMatchObject({ change_pct: res.body.data.at(-1).value, unit: 'percent' });
    // The reference rate's own series is still the stored rates.
    const rateSeries = await get('/v1/data/fx/spot/reference_rate?entity=EUR-USD&series=true');
    expect(rateSeries.body.data.map((r: { value: number }) => r.value)).toEqual(rates.map(([, r]) => r));
  });

  it('macro *_yoy with series=true answers the growth per month in percent, with the levels it compares', async () => {
    // services/data/recordings/fred/M2SL: 2023-01 .. 2024-09, billions of USD.
    const m2 = [
      21197.6, 21078.6, 20836.8, 20697.8, 20747.6, 20793.6, 20770.7, 20759.0, 20740.1, 20717.6, 20772.0,
      20838.5, 20779.6, 20783.1, 20838.7, 20878.3, 20966.6, 21022.3, 21079.7, 21175.0, 21250.3,
    ];
    const res = await get('/v1/data/macro/money/m2_growth_yoy?series=true');
    expect(res.status).toBe(200);
    const rows = res.body.data as { value: number; level: number; base_level: number; period: string }[];
    // 2024-01 .. 2024-09: the months with the same month a year earlier.
    expect(rows.map((r) => r.value)).toEqual(
      m2.slice(12).map((level, i) => expect.closeTo((level / m2[i]! - 1) * 100, 4)),
    );
    expect(rows.map((r) => [r.level, r.base_level])).toEqual(
      m2.slice(12).map((level, i) => [Math.round(level * 1e9), Math.round(m2[i]! * 1e9)]),
    );
    expect(res.body.provenance.method).toMatch(
      /Series: the metric's value \(in percent\) computed at every stored point/,
    );
    const latest = await ok200('/v1/data/macro/money/m2_growth_yoy');
    expect(latest.data).toEqual({
      growth_pct: rows.at(-1)!.value,
      period: rows.at(-1)!.period,
      level: 21250.3e9,
      base_period: expect.any(String),
      base_level: 20740.1e9,
      level_unit: 'USD',
      unit: 'percent',
    });
    const cpi = await get('/v1/data/macro/prices/cpi_inflation_yoy?series=true');
    // CPIAUCSL is recorded for 2023-01 .. 2024-10: ten months have their base.
    expect(cpi.body.data).toHaveLength(10);
    expect(cpi.body.data.at(-1).value).toBeCloseTo((315.454 / 307.619 - 1) * 100, 4);
  });

  it('a series read of a scalar feed pages its history, ascending in time', async () => {
    const res = await get('/v1/data/absurd_cosmos/space_weather/planetary_kp?series=true');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(12);
    expect(res.body.data.at(-1)).toMatchObject({ value: 1.67 });
    const ts = res.body.data.map((r: { ts: string }) => r.ts);
    expect(ts).toEqual([...ts].sort());
  });

  /** Every row of a series, by walking next_cursor from a first page read with the budget given. */
  async function walk(path: string, budget: number) {
    const rows: Record<string, unknown>[] = [];
    let url = `${path}&max_response_tokens=${budget}`;
    for (let page = 0; page < 50; page++) {
      const res = await get(url);
      expect(res.status).toBe(200);
      rows.unshift(...res.body.data);
      if (!res.body.meta.next_cursor) return { rows, first: res.body };
      expect(res.body.meta.has_more).toBe(true);
      url = `${path}&max_response_tokens=${budget}&cursor=${encodeURIComponent(res.body.meta.next_cursor)}`;
    }
    throw new Error(`${path}: the cursor never ended`);
  }

  it('truncating a feed series keeps the newest rows and the cursor walks every row exactly once', async () => {
    const path = '/v1/data/absurd_cosmos/space_weather/planetary_kp?series=true';
    // Readings older than the recording's, so the history is longer than the smallest budget.
    const oldest = Date.parse((await get(path)).body.data[0].ts);
    const rows = Array.from({ length: 60 }, (_, i) => ({
      key: '',
      metric: 'planetary_kp',
      ts: new Date(oldest - (i + 1) * 3 * 3_600_000).toISOString(),
      value: (i % 9) + 0.33,
      payload: { a_running: i, station_count: 8 },
    }));
    // Through the service's ingestor, as every write of a running service goes: it drops what was kept.
    await deps.ingestor.ingest({ kind: 'observations', source: 'noaa_swpc', rows });
    const wholeAnswer = await get(path);
    expect(wholeAnswer.text.length).toBeGreaterThan(MAX_RESPONSE_TOKENS.min * 4);
    const whole = wholeAnswer.body;
    expect(whole.meta.truncated).toBe(false);
    const first = (await get(`${path}&max_response_tokens=${MAX_RESPONSE_TOKENS.min}`)).body;
    expect(first.meta).toMatchObject({ truncated: true, has_more: true });
    expect(first.data).toEqual(whole.data.slice(-first.data.length));
    const walked = await walk(path, MAX_RESPONSE_TOKENS.min);
    expect(walked.rows).toEqual(whole.data);
  });

  it('honours max_response_tokens from its documented minimum on every series read, both forms', async () => {
    const min = MAX_RESPONSE_TOKENS.min;
    for (const { product, metric } of catalogFor('replay').allMetrics()) {
      if (!metric.series || metric.status !== 'live') continue;
      const entity = metric.entities?.[0] ?? product.default_entity ?? product.entities[0];
      const path = `/v1/data/${product.category}/${product.product}/${metric.metric}?series=true${entity ? `&entity=${entity}` : ''}`;
      for (const format of ['', '&format=table']) {
        const res = await get(`${path}${format}&max_response_tokens=${min}`);
        expect({ path, format, status: res.status }).toEqual({ path, format, status: 200 });
        expect({ path, format, fits: res.text.length <= min * 4 }).toEqual({ path, format, fits: true });
      }
    }
  });
});
