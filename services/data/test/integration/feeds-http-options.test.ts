import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { calendarOf, shiftOf } from '../../src/jobs/feeds/recorded-feeds.js';
import { RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import { deribitInstrument } from '../../src/adapters/parsers/derivatives/deribit.js';
import type { MigratedDatabase } from '../support/db.js';
import { loadedAt, recordedFeedsService, replayedOk } from '../support/feeds.js';

/**
 * crypto/options through HTTP on the data service, answered from the recorded Deribit chain replayed
 * by loadRecordedFeeds into a fresh Postgres database: the chain, its filters, open interest and the
 * implied volatility index. The other feeds: feeds-http.test.ts.
 */
describe('crypto/options over HTTP', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;

  beforeAll(async () => {
    ({ db, app, headers } = await recordedFeedsService('data_feeds_options'));
  });
  afterAll(() => db.drop());

  const get = (path: string) => request(app).get(path).set(headers);
  const ok200 = (path: string) => replayedOk(get, path);

  // Played at the current minute like every fresh feed (README, "Replay"), its expiries mapped once
  // per replay day: the calendar clock of that play.
  const optionsClock = () => {
    const recording = RECORDINGS.find((r) => r.source === 'deribit' && r.real)!;
    return calendarOf(recording, shiftOf(recording, loadedAt).clock)!.clock;
  };
  /** Open interest per expiry summed from the CSV by hand; the chain answers live expiries only. */
  const CSV_EXPIRIES = [
    { expiry: 1590134400000, calls: 7542.8, puts: 7155.8, count: 58 },
    { expiry: 1590220800000, calls: 294.2, puts: 264.0, count: 38 },
    { expiry: 1590739200000, calls: 12368.1, puts: 15628.6, count: 42 },
    { expiry: 1591344000000, calls: 139.8, puts: 301.5, count: 50 },
    { expiry: 1593158400000, calls: 26129.3, puts: 20075.4, count: 58 },
    { expiry: 1601020800000, calls: 7078.6, puts: 4970.3, count: 42 },
    { expiry: 1608883200000, calls: 2434.5, puts: 1699.1, count: 38 },
  ];
  const liveExpiries = (clock: ReturnType<typeof optionsClock>) =>
    CSV_EXPIRIES.filter((e) => Date.parse(clock(e.expiry)) > loadedAt.getTime());

  it('chain: marks in USD (mark in BTC x forward), IV as a fraction, greeks and OI as recorded', async () => {
    const body = await ok200('/v1/data/crypto/options/chain?entity=BTC');
    const clock = optionsClock();
    expect(body.data.underlying).toBe('BTC');
    expect(body.data.options).toHaveLength(liveExpiries(clock).reduce((n, e) => n + e.count, 0));
    const expiryJun26 = clock(Date.UTC(2020, 5, 26, 8));
    const call = body.data.options.find(
      (o: { instrument: string }) => o.instrument === deribitInstrument('BTC', expiryJun26, 9000, 'call'),
    );
    // CSV row BTC-26JUN20-9000-C: mark_price 0.10903998 BTC, underlying_price 9094.29, mark_iv 84.25.
    expect(call).toEqual({
      instrument: deribitInstrument('BTC', expiryJun26, 9000, 'call'),
      expiry: expiryJun26,
      strike: 9000,
      option_type: 'call',
      mark_price_usd: expect.closeTo(991.6412, 4),
      mark_iv: 0.8425,
      delta: 0.56783,
      gamma: 0.00016,
      vega: 11.129,
      theta: -13.25778,
      open_interest: 1198.2,
    });
    const expiryJun5 = clock(Date.UTC(2020, 5, 5, 8));
    const put = body.data.options.find(
      (o: { instrument: string }) => o.instrument === deribitInstrument('BTC', expiryJun5, 9000, 'put'),
    );
    // CSV row BTC-5JUN20-9000-P: mark_price 0.05738853 BTC, underlying_price 9090.47, mark_iv 79.13.
    expect(put).toMatchObject({
      strike: 9000,
      option_type: 'put',
      mark_price_usd: expect.closeTo(521.6887, 4),
      mark_iv: 0.7913,
      delta: -0.44346,
      open_interest: 16.3,
    });
    expect(body.meta.venues).toEqual(['deribit']);
  });

  it('open_interest and put_call_oi_ratio sum the CSV open interest', async () => {
    const live = liveExpiries(optionsClock());
    const calls = live.reduce((s, e) => s + e.calls, 0);
    const puts = live.reduce((s, e) => s + e.puts, 0);
    const oi = await ok200('/v1/data/crypto/options/open_interest?entity=BTC');
    expect(oi.data).toMatchObject({ unit: 'contracts' });
    expect(oi.data.calls).toBeCloseTo(calls, 4);
    expect(oi.data.puts).toBeCloseTo(puts, 4);
    expect(oi.data.total).toBeCloseTo(calls + puts, 4);
    expect(oi.data.by_expiry).toHaveLength(live.length);
    const ratio = await ok200('/v1/data/crypto/options/put_call_oi_ratio');
    expect(ratio.data.ratio).toBeCloseTo(puts / calls, 6);
  });

  it('implied_vol_index interpolates the two expiries bracketing 30 days and shows its inputs', async () => {
    const body = await ok200('/v1/data/crypto/options/implied_vol_index?entity=BTC');
    const clock = optionsClock();
    expect(body.data.near.expiry).toBe(clock(Date.UTC(2020, 5, 5, 8)));
    expect(body.data.next.expiry).toBe(clock(Date.UTC(2020, 5, 26, 8)));
    expect(body.data.weights.near + body.data.weights.next).toBeCloseTo(1, 6);
    const interpolated =
      (body.data.near.t_years * body.data.near.variance * body.data.weights.near +
        body.data.next.t_years * body.data.next.variance * body.data.weights.next) /
      (30 / 365);
    expect(body.data.value).toBeCloseTo(100 * Math.sqrt(interpolated), 2);
    expect(body.data.value).toBeGreaterThan(70);
    expect(body.data.value).toBeLessThan(130);
    expect(body.provenance.method).toMatch(/VIX-style/);
  });

  it("chain filters: option_type (call|put) and expiry (the UTC day YYYY-MM-DD of the rows' expiry)", async () => {
    const clock = optionsClock();
    const whole = await ok200('/v1/data/crypto/options/chain?entity=BTC');
    type Row = { option_type: string; expiry: string };
    const rows = whole.data.options as Row[];
    const puts = await ok200('/v1/data/crypto/options/chain?option_type=put');
    expect(puts.data.options).toEqual(rows.filter((o) => o.option_type === 'put'));
    expect(puts.data.underlying_px).toBe(whole.data.underlying_px);
    expect(puts.provenance.method).toMatch(/Filtered: option_type put/);
    const jun26 = clock(Date.UTC(2020, 5, 26, 8));
    const day = jun26.slice(0, 10);
    const calls = await ok200(`/v1/data/crypto/options/chain?option_type=call&expiry=${day}`);
    const expected = rows.filter((o) => o.option_type === 'call' && o.expiry === jun26);
    expect(expected.length).toBeGreaterThan(0);
    expect(calls.data.options).toEqual(expected);
    // The legacy route takes them too.
    const legacy = await get(`/v1/chain?option_type=call&expiry=${day}`);
    expect(legacy.body.data.options).toEqual(expected);

    for (const [query, path, detail] of [
      ['option_type=C', 'query.option_type', /call or put/],
      [`expiry=${jun26}`, 'query.expiry', /YYYY-MM-DD/],
      ['expiry=26JUN20', 'query.expiry', /YYYY-MM-DD/],
      ['expiry=2026-02-30', 'query.expiry', /YYYY-MM-DD/],
    ] as const) {
      const res = await get(`/v1/data/crypto/options/chain?${query}`);
      expect({ query, status: res.status, path: res.body.errors?.[0]?.path }).toEqual({
        query,
        status: 400,
        path,
      });
      expect(res.body.detail).toMatch(detail);
    }
    // Only the chain takes them.
    const oi = await get('/v1/data/crypto/options/open_interest?option_type=call');
    expect(oi.status).toBe(400);
    expect(oi.body.errors[0].path).toBe('query.option_type');
    expect(oi.body.detail).toMatch(/crypto\/options\/chain/);
    // A well-formed day without an expiry: 404 naming the days that have one.
    const none = await get('/v1/data/crypto/options/chain?expiry=1999-01-01');
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain(day);
    // The catalogue lists them, for the chain only.
    const catalog = await get('/v1/catalog');
    type Entry = { metric: string; filters?: string[] };
    const options = (
      catalog.body.data.categories as Array<{
        category: string;
        products: Array<{ product: string; metrics: Entry[] }>;
      }>
    )
      .find((c) => c.category === 'crypto')!
      .products.find((p) => p.product === 'options')!.metrics;
    expect(options.map((m) => [m.metric, m.filters])).toEqual([
      ['chain', ['option_type', 'expiry']],
      ['implied_vol_index', undefined],
      ['put_call_oi_ratio', undefined],
      ['open_interest', undefined],
    ]);
  });

  it('refuses an entity the catalogue does not list, naming the allowed ones', async () => {
    const res = await get('/v1/data/crypto/options/chain?entity=DOGE');
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('validation_failed');
    expect(res.body.detail).toMatch(/DOGE/);
    expect(res.body.detail).toMatch(/BTC/);
  });
});
