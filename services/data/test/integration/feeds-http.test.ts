import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { shiftOf } from '../../src/jobs/feeds/recorded-feeds.js';
import { readRecording, RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import type { MigratedDatabase } from '../support/db.js';
import { loadedAt, recordedFeedsService, replayedOk } from '../support/feeds.js';

/**
 * Every feed metric through HTTP on the data service, answered from the recordings replayed by
 * loadRecordedFeeds into a fresh Postgres database. crypto/options: feeds-http-options.test.ts; series
 * reads, their pages and token budgets: feeds-http-series.test.ts. crypto/futures is played by the
 * market replay from the recorded perpetuals: replay-futures.test.ts.
 */
describe('feed metrics over HTTP', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;

  beforeAll(async () => {
    ({ db, app, headers } = await recordedFeedsService('data_feeds_http'));
  });
  afterAll(() => db.drop());

  const get = (path: string) => request(app).get(path).set(headers);
  const ok200 = (path: string) => replayedOk(get, path);

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
