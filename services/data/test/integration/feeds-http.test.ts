import { catalogFor, MAX_RESPONSE_TOKENS } from '@meridian/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createMemoryBus } from '@meridian/bus';
import { callerHeaders, TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createApp, type Deps } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { dataDeps } from '../../src/main.js';
import { ingest } from '../../src/flows/ingest.js';
import { calendarOf, loadRecordedFeeds, shiftOf } from '../../src/jobs/recorded-feeds.js';
import { readRecording, RECORDINGS } from '../../src/adapters/upstream/recordings.js';
import { deribitInstrument } from '../../src/adapters/upstream/deribit.js';
import { replayShift } from '../../src/domain/replay-clock.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

/**
 * Every feed metric through HTTP on the data service, answered from the recordings replayed by
 * loadRecordedFeeds into a fresh Postgres database. crypto/futures is played by the market replay
 * from the recorded perpetuals: replay-futures.test.ts.
 */
describe('feed metrics over HTTP', () => {
  let db: MigratedDatabase;
  let app: ReturnType<typeof createApp>;
  let headers: Record<string, string>;
  /**
   * The one instant of the test, the service's clock too: the replayed scoreboards then hold games of
   * every state (NBA in progress since 01:00, a usa.1 game scheduled for 23:00: README, "Games").
   */
  const loadedAt = new Date('2026-12-14T18:00:30Z');

  beforeAll(async () => {
    db = await migratedDatabase('data_feeds_http');
    const config = parseConfig({
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      DATABASE_URL: db.url,
      INGEST_MODE: 'off',
    });
    const deps: Deps = dataDeps(
      {
        config,
        db: db.db,
        bus: createMemoryBus(),
        logger: createLogger('data-test', { level: 'silent' }),
        metrics: createMetrics('data_test', { defaultMetrics: false }),
        assertionKey: testAssertionKey,
      },
      () => loadedAt.getTime(),
    );
    await loadRecordedFeeds(deps, loadedAt);
    await spotQuotes(db, loadedAt);
    app = createApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_feeds',
      key_id: 'key_feeds',
    });
  });
  afterAll(() => db.drop());

  const get = (path: string) => request(app).get(path).set(headers);

  async function ok200(path: string) {
    const res = await get(path);
    expect({ path, status: res.status, body: res.status === 200 ? null : res.body }).toMatchObject({
      path,
      status: 200,
      body: null,
    });
    expect(res.body.provenance.method).toMatch(/replay of the recording services\/data\/recordings\//);
    expect(res.body.provenance.method).toMatch(/not a live print/);
    expect(res.body.meta.staleness_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.meta.confidence).toBeGreaterThanOrEqual(0);
    expect(res.body.meta.confidence).toBeLessThanOrEqual(1);
    expect(res.body.provenance.sources.length).toBeGreaterThan(0);
    return res.body;
  }

  describe('crypto/options', () => {
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

  it('etf flows: the newest day per fund and in total, cumulative from the Total row', async () => {
    const net = await ok200('/v1/data/crypto/etf_flows/net_flow');
    expect(net.data).toMatchObject({ fund: 'all funds', value: -120_600_000, unit: 'USD' });
    const ibit = await ok200('/v1/data/crypto/etf_flows/net_flow?entity=IBIT');
    expect(ibit.data.value).toBe(337_600_000);
    const cumulative = await ok200('/v1/data/crypto/etf_flows/cumulative_net_flow?entity=GBTC');
    expect(cumulative.data.value).toBe(-20_445_000_000);
    const byEtf = await ok200('/v1/data/crypto/etf_flows/flow_by_etf');
    expect(byEtf.data.flows).toEqual({
      IBIT: 337_600_000,
      FBTC: -179_200_000,
      BITB: -48_100_000,
      ARKB: -161_700_000,
      GBTC: -69_200_000,
    });
    const sum = Object.values(byEtf.data.flows as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(sum).toBe(net.data.value);
  });

  it('crypto/network: blockchain.info stats in their units', async () => {
    expect((await ok200('/v1/data/crypto/network/market_cap')).data).toBeCloseTo(89621.37 * 19_788_187.5, 0);
    expect((await ok200('/v1/data/crypto/network/hashrate?entity=BTC')).data).toBeCloseTo(748.4165, 3);
    expect((await ok200('/v1/data/crypto/network/difficulty')).data).toBe(101646843652785);
    expect((await ok200('/v1/data/crypto/network/tx_count')).data).toBe(612847);
  });

  it('fx/spot: ECB rates, crossed through the euro, and the change from the previous fixing', async () => {
    expect((await ok200('/v1/data/fx/spot/reference_rate?entity=EUR-USD')).data.rate).toBe(1.054);
    expect((await ok200('/v1/data/fx/spot/reference_rate?entity=USD-JPY')).data.rate).toBeCloseTo(
      164.77 / 1.054,
      5,
    );
    const change = await ok200('/v1/data/fx/spot/change_24h?entity=GBP-USD');
    const today = 1.054 / 0.83125;
    const before = 1.0564 / 0.83173;
    expect(change.data.change_pct).toBeCloseTo((today / before - 1) * 100, 3);
  });

  it('fx/spot/change_24h with series=true answers the change per fixing in percent, not the stored rates', async () => {
    // Two older fixings before the recorded two (Mon 11th, Tue 12th), in the recording's replay time.
    const clock = replayShift('2024-11-14T15:10:00Z', loadedAt, 'day').clock;
    const rates: [string, number][] = [
      ['2024-11-11', 1.065],
      ['2024-11-12', 1.0623],
      ['2024-11-13', 1.0564],
      ['2024-11-14', 1.054],
    ];
    await ingest(
      db.db,
      {
        kind: 'observations',
        source: 'ecb',
        rows: rates.slice(0, 2).map(([day, value]) => ({
          key: 'EUR-USD',
          metric: 'fx_reference_rate',
          ts: clock(`${day}T15:00:00Z`),
          value,
          payload: { cross: 'direct' },
        })),
      },
      catalogFor('replay'),
    );
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

  it('weather/observations per city, absurd_earth weather and tides', async () => {
    expect((await ok200('/v1/data/weather/observations/temperature?entity=tokyo')).data).toBe(15.2);
    expect((await ok200('/v1/data/weather/observations/wind_speed?entity=new_york')).data).toBe(14.3);
    expect((await ok200('/v1/data/weather/observations/precipitation?entity=new_york')).data).toBe(0.4);
    expect((await ok200('/v1/data/absurd_earth/weather/temperature')).data).toBe(-38.6);
    expect((await ok200('/v1/data/absurd_earth/tides/water_level')).data).toBe(1.496);
    const bad = await get('/v1/data/weather/observations/temperature?entity=paris');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/london/);
  });

  describe('sports', () => {
    const games = (body: { data: { games: { status: string }[] } }) => body.data.games.map((g) => g.status);

    it('match_result answers finals only, live_score in-progress only, box_score any played game', async () => {
      const finals = await ok200('/v1/data/sports/basketball/match_result?entity=nba');
      expect(games(finals)).toEqual(['final', 'final']);
      expect(finals.data.games[0]).toMatchObject({
        home: 'New York Knicks',
        away: 'Chicago Bulls',
        home_score: 123,
        away_score: 124,
      });
      const live = await ok200('/v1/data/sports/basketball/live_score?entity=nba');
      expect(games(live)).toEqual(['in_progress', 'in_progress']);
      const box = await ok200('/v1/data/sports/basketball/box_score?entity=nba');
      expect(games(box).sort()).toEqual(['final', 'final', 'in_progress', 'in_progress']);
      expect(Object.keys(box.data.games[0]).sort()).toEqual(
        [
          'away',
          'away_score',
          'detail',
          'event',
          'home',
          'home_score',
          'league',
          'sport',
          'start_time',
          'status',
        ].sort(),
      );
      const football = await ok200('/v1/data/sports/football/live_score');
      expect(football.data.games).toEqual([
        expect.objectContaining({ home: 'Liverpool', home_score: 1, away_score: 0, status: 'in_progress' }),
      ]);
      const tennis = await ok200('/v1/data/sports/tennis/match_result?entity=atp');
      expect(tennis.data.games).toEqual([
        expect.objectContaining({
          home: 'Alex de Minaur',
          away: 'Taylor Fritz',
          home_score: 1,
          away_score: 2,
        }),
      ]);
      const tennisLive = await ok200('/v1/data/sports/tennis/live_score?entity=atp');
      expect(tennisLive.data.games).toEqual([expect.objectContaining({ home_score: 1, away_score: 0 })]);
      expect(games(await ok200('/v1/data/sports/football/match_result?entity=usa.1'))).toEqual(['final']);
    });

    it('series=true gives recent played games as rows, never a scheduled one', async () => {
      const res = await get('/v1/data/sports/football/match_result?series=true');
      expect(res.status).toBe(200);
      expect(res.body.data.map((g: { status: string }) => g.status)).toEqual(['final', 'final']);
      expect(res.body.meta.returned).toBe(2);
    });
  });

  it('absurd_cosmos, absurd_civic and absurd_economy feeds', async () => {
    expect((await ok200('/v1/data/absurd_cosmos/space_weather/planetary_kp')).data).toBe(1.67);
    expect((await ok200('/v1/data/absurd_cosmos/restless_earth/quakes_last_hour')).data).toBe(4);
    const largest = await ok200('/v1/data/absurd_cosmos/restless_earth/largest_quake_today');
    // The quake feed is played at the current minute (not shifted by whole days), so which quakes
    // fall on "today" (UTC) depends on the hour the test runs: the expectation is read from the
    // recording played the same way.
    expect(largest.data.largest).toMatchObject(await largestOfReplayedDay(loadedAt));
    const humans = await ok200('/v1/data/absurd_cosmos/off_world/humans_in_space');
    expect(humans.data).toMatchObject({ count: 12, by_craft: { ISS: 9, Tiangong: 3 } });
    expect((await ok200('/v1/data/absurd_cosmos/solar_cycle/sunspot_number')).data).toBe(166.3);
    const red = await ok200('/v1/data/absurd_civic/leviathan_ledger/red_tape_output');
    expect(red.data).toMatchObject({ documents: 130, by_type: { Rule: 21, Notice: 94 } });
    expect((await ok200('/v1/data/absurd_civic/city_nervous_system/rat_sightings_today')).data).toBe(13);
    expect((await ok200('/v1/data/absurd_economy/treasury/national_debt')).data).toBe(35974102452345.77);
    expect((await ok200('/v1/data/absurd_economy/treasury/avg_interest_rate')).data).toBe(3.352);
    const noEntity = await get('/v1/data/absurd_cosmos/space_weather/planetary_kp?entity=mars');
    expect(noEntity.status).toBe(400);
  });

  it('stocks and commodities: newest close or fix with the change from the previous one', async () => {
    const spx = await ok200('/v1/data/stocks/indices/sp500');
    expect(spx.data).toMatchObject({ level: 5949.17, unit: 'index points' });
    expect(spx.data.change_pct).toBeCloseTo((5949.17 / 5985.38 - 1) * 100, 4);
    expect((await ok200('/v1/data/stocks/indices/nasdaq')).data.level).toBe(19107.65);
    expect((await ok200('/v1/data/commodities/energy/wti_crude')).data).toMatchObject({
      price: 68.12,
      unit: 'USD/bbl',
    });
    expect((await ok200('/v1/data/commodities/energy/natural_gas')).data.price).toBe(2.47);
    expect((await ok200('/v1/data/commodities/metals/gold')).data).toMatchObject({
      price: 2553.9,
      unit: 'USD/ozt',
    });
    expect((await ok200('/v1/data/commodities/metals/silver')).data.price).toBe(30.14);
    expect((await ok200('/v1/data/commodities/metals/copper')).data).toMatchObject({
      price: 9556.45,
      unit: 'USD/t',
    });
    // LBMA prices no copper and LME forbids redistribution: the IMF's price through FRED.
    const imf = await ok200('/v1/data/commodities/metals/copper?source=fred');
    expect(imf.data.price).toBe(9556.45);
    expect(imf.meta.venues).toEqual(['fred']);
    expect((await get('/v1/data/commodities/metals/copper?source=lme')).status).toBe(400);
  });

  it('macro: M2 and CPI with year-over-year growth against the same month a year earlier', async () => {
    const m2 = await ok200('/v1/data/macro/money/m2_money_supply');
    expect(m2.data.value).toBe(21250.3e9);
    const growth = await ok200('/v1/data/macro/money/m2_growth_yoy');
    expect(growth.data.growth_pct).toBeCloseTo((21250.3 / 20740.1 - 1) * 100, 4);
    expect((await ok200('/v1/data/macro/prices/cpi')).data.value).toBe(315.454);
    const inflation = await ok200('/v1/data/macro/prices/cpi_inflation_yoy');
    expect(inflation.data.growth_pct).toBeCloseTo((315.454 / 307.619 - 1) * 100, 4);
  });

  it('medical: PubMed counts, NICE downloads, Radiopaedia articles', async () => {
    expect((await ok200('/v1/data/medical/literature/publication_count')).data.count).toBe(4218);
    const byType = await ok200('/v1/data/medical/literature/publication_count_by_type');
    expect(byType.data.by_type).toMatchObject({ review: 742, case_reports: 218 });
    const nice = await ok200('/v1/data/medical/guidelines/guideline_downloads');
    expect(nice.data.total).toBe(48213 + 39876 + 27340 + 18452 + 22917);
    expect((await ok200('/v1/data/medical/radiology/article_count')).data.count).toBe(16480);
    const byCategory = await ok200('/v1/data/medical/radiology/article_count_by_category');
    const sum = Object.values(byCategory.data.by_category as Record<string, number>).reduce(
      (a, b) => a + b,
      0,
    );
    expect(sum).toBe(byCategory.data.total);
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
    await ingest(db.db, { kind: 'observations', source: 'noaa_swpc', rows }, catalogFor('replay'));
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

  it('the demo snapshot carries BTC contracts (IV in percent) and scoreboards with scheduled games', async () => {
    const res = await get('/v1/demo');
    expect(res.status).toBe(200);
    const { options, sports } = res.body.data;
    expect(options.underlying).toBe('BTC');
    expect(options.contracts).toHaveLength(6);
    for (const c of options.contracts) {
      expect(['C', 'P']).toContain(c.option_type);
      expect(c.mark_iv).toBeGreaterThan(1);
    }
    const statuses = sports.events.map((e: { status: string }) => e.status);
    expect(statuses).toContain('scheduled');
    expect(statuses).toContain('final');
    expect(sports.events[0]).toEqual({
      sport: expect.any(String),
      league: expect.any(String),
      home: expect.any(String),
      away: expect.any(String),
      home_score: expect.any(Number),
      away_score: expect.any(Number),
      status: expect.any(String),
      start_time: expect.any(String),
    });
  });
});

/** Spot closes of Binance.US one minute before now, so that the spot series answer beside the feeds. */
const SPOT = { usd: 28194.93, usdt: 28110.26 };

async function spotQuotes(db: MigratedDatabase, now: Date): Promise<void> {
  const ts = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - 60_000).toISOString();
  for (const [symbol, close] of [
    ['BTC-USD', SPOT.usd],
    ['BTC-USDT', SPOT.usdt],
  ] as const)
    await ingest(
      db.db,
      {
        kind: 'candles',
        source: 'binanceus',
        symbol,
        interval: '1m',
        rows: [{ ts, open: close, high: close, low: close, close, volume: 10, trade_count: 5 }],
      },
      catalogFor('replay'),
    );
}

/** The largest quake since 00:00 UTC of the replayed feed's day, by reading the recording as the replay plays it. */
async function largestOfReplayedDay(at: Date): Promise<{ magnitude: number; place: string }> {
  const recording = RECORDINGS.find((r) => r.source === 'usgs')!;
  const batch = [recording.parse(await readRecording(recording), shiftOf(recording, at).clock)].flat()[0]!;
  if (batch.kind !== 'observations') throw new Error('the quake feed holds observations');
  const generated = batch.rows.find((r) => r.metric === 'usgs_feed')!.ts;
  const dayStart = `${generated.slice(0, 10)}T00:00:00.000Z`;
  const quakes = batch.rows
    .filter((r) => r.metric === 'earthquake' && r.ts >= dayStart && r.ts <= generated)
    .sort((a, b) => b.value! - a.value! || a.ts.localeCompare(b.ts));
  return { magnitude: quakes[0]!.value!, place: (quakes[0]!.payload as { place: string }).place };
}
