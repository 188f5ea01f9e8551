import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { readFile } from 'node:fs/promises';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { espn } from '../../src/adapters/connectors/espn.js';
import { federalRegister } from '../../src/adapters/connectors/federal-register.js';
import { fiscalDataDebt, fiscalDataRates } from '../../src/adapters/connectors/fiscal-data.js';
import { CONNECTORS } from '../../src/adapters/connectors/index.js';
import { noaaSwpcKp, noaaSwpcSolarCycle } from '../../src/adapters/connectors/noaa-swpc.js';
import { noaaTides } from '../../src/adapters/connectors/noaa-tides.js';
import { nyc311 } from '../../src/adapters/connectors/nyc-311.js';
import { openMeteo, openMeteoColdest } from '../../src/adapters/connectors/open-meteo.js';
import { openNotify } from '../../src/adapters/connectors/open-notify.js';
import { usgs } from '../../src/adapters/connectors/usgs.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { testApp, testDeps } from '../support/app.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { liveSettings } from '../support/live.js';

/**
 * The world feeds' live connectors (weather, sports, the absurd_ feeds), each against a real HTTP
 * server on loopback playing the recorded answer in the upstream's own format, through the runner
 * (createLiveIngest) into Postgres, and read back through the data app. The poll's clock is set to
 * the recording's instant, so the date windows of the queries are those of the recording.
 */

const recording = (file: string) => readFile(new URL(`../../recordings/${file}`, import.meta.url), 'utf8');

type Get = (path: string) => Promise<request.Response>;

interface Upstream {
  def: ConnectorDefinition;
  /** Path on the upstream → recording file (one poll may read several). */
  answers: Record<string, string>;
  /** The recording as the upstream answers it today, where its format changed since. */
  rewrite?: { why: string; to: (recorded: string) => string };
  /** The poll's `now`: when the recording was made. */
  at: string;
  /** Rows the recorded answer stores, and the metrics they are under. */
  rows: number;
  metrics: string[];
  /** What the upstream asked shows the window built from `now`. */
  asked?: (query: URLSearchParams) => void;
  /** The product answers through the data app. */
  serves: (get: Get) => Promise<void>;
  /** An answer with nothing in it, in the upstream's format, and how many rows it still stores. */
  empty: { body: string; rows: number };
}

const ok = async (get: Get, path: string) => {
  const res = await get(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  expect(res.body.provenance.method).not.toMatch(/replay of the recording/);
  return res.body as { data: unknown };
};
const games = (body: { data: unknown }) =>
  (body.data as { games: { status: string }[] }).games.map((g) => g.status);

const SCOREBOARDS = {
  '/apis/site/v2/sports/basketball/nba/scoreboard': 'espn/basketball_nba_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/soccer/eng.1/scoreboard': 'espn/soccer_eng.1_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/soccer/usa.1/scoreboard': 'espn/soccer_usa.1_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/tennis/atp/scoreboard': 'espn/tennis_atp_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/tennis/wta/scoreboard': 'espn/tennis_wta_scoreboard_2024-11-14.json',
};

const UPSTREAMS: Upstream[] = [
  {
    def: openMeteo,
    answers: { '/v1/forecast': 'open_meteo/current_cities_2024-11-14.json' },
    at: '2024-11-14T12:05:00Z',
    rows: 9,
    metrics: ['temperature', 'wind_speed', 'precipitation'],
    asked: (q) => {
      expect(q.get('latitude')).toBe('51.5085,40.7143,35.6895');
      expect(q.get('current')).toBe('temperature_2m,wind_speed_10m,precipitation');
      expect(q.get('timezone')).toBe('GMT');
    },
    serves: async (get) => {
      expect((await ok(get, '/v1/data/weather/observations/temperature?entity=tokyo')).data).toBe(15.2);
      expect((await ok(get, '/v1/data/weather/observations/wind_speed?entity=new_york')).data).toBe(14.3);
    },
    empty: { body: '[]', rows: 0 },
  },
  {
    def: openMeteoColdest,
    answers: { '/v1/forecast': 'open_meteo/current_oymyakon_2024-11-14.json' },
    at: '2024-11-14T12:05:00Z',
    rows: 1,
    metrics: ['temperature'],
    asked: (q) => expect([q.get('latitude'), q.get('longitude')]).toEqual(['63.4608', '142.7858']),
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_earth/weather/temperature')).data).toBe(-38.6);
    },
    empty: { body: '[]', rows: 0 },
  },
  {
    def: espn,
    answers: SCOREBOARDS,
    at: '2024-11-14T20:30:00Z',
    rows: 14,
    metrics: ['basketball_event', 'football_event', 'tennis_event'],
    serves: async (get) => {
      const finals = await ok(get, '/v1/data/sports/basketball/match_result?entity=nba');
      expect(games(finals)).toEqual(['final', 'final']);
      expect(finals.data).toMatchObject({
        games: [{ home: 'New York Knicks', away: 'Chicago Bulls', home_score: 123, away_score: 124 }, {}],
      });
      const football = await ok(get, '/v1/data/sports/football/live_score');
      expect((football.data as { games: unknown[] }).games).toEqual([
        expect.objectContaining({ home: 'Liverpool', home_score: 1, away_score: 0 }),
      ]);
      const tennis = await ok(get, '/v1/data/sports/tennis/match_result?entity=atp');
      expect(tennis.data).toMatchObject({
        games: [{ home: 'Alex de Minaur', home_score: 1, away_score: 2 }],
      });
    },
    empty: { body: '{"events": []}', rows: 0 },
  },
  {
    def: noaaSwpcKp,
    answers: { '/products/noaa-planetary-k-index.json': 'noaa_swpc/noaa-planetary-k-index_2024-11-14.json' },
    at: '2024-11-14T12:10:00Z',
    rows: 12,
    metrics: ['planetary_kp'],
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_cosmos/space_weather/planetary_kp')).data).toBe(1.67);
    },
    empty: { body: '[["time_tag","Kp","a_running","station_count"]]', rows: 0 },
  },
  {
    def: noaaSwpcKp,
    answers: { '/products/noaa-planetary-k-index.json': 'noaa_swpc/noaa-planetary-k-index_2024-11-14.json' },
    // SWPC's JSON change of spring 2026: objects with numbers instead of a header row and strings.
    // Dated a week later than the recording, so that its rows are new ones beside the recorded ones.
    rewrite: {
      why: 'in the object format SWPC answers since 2026',
      to: (recorded) => {
        const [, ...rows] = JSON.parse(recorded) as string[][];
        const weekLater = (tag: string) =>
          new Date(Date.parse(`${tag.replace(' ', 'T')}Z`) + 7 * 86_400_000).toISOString().slice(0, 19);
        return JSON.stringify(
          rows.map(([time_tag, kp, a, n]) => ({
            time_tag: weekLater(time_tag!),
            Kp: Number(kp),
            a_running: Number(a),
            station_count: Number(n),
          })),
        );
      },
    },
    at: '2024-11-21T12:10:00Z',
    rows: 12,
    metrics: ['planetary_kp'],
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_cosmos/space_weather/planetary_kp')).data).toBe(1.67);
    },
    empty: { body: '[]', rows: 0 },
  },
  {
    def: noaaSwpcSolarCycle,
    answers: {
      '/json/solar-cycle/observed-solar-cycle-indices.json':
        'noaa_swpc/observed-solar-cycle-indices_2024-11-14.json',
    },
    at: '2024-11-14T12:10:00Z',
    rows: 6,
    metrics: ['sunspot_number'],
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_cosmos/solar_cycle/sunspot_number')).data).toBe(166.3);
    },
    empty: { body: '[]', rows: 0 },
  },
  {
    def: usgs,
    answers: { '/earthquakes/feed/v1.0/summary/all_day.geojson': 'usgs/all_day_2024-11-14.geojson' },
    at: '2024-11-14T12:00:00Z',
    rows: 46,
    metrics: ['earthquake', 'usgs_feed'],
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_cosmos/restless_earth/quakes_last_hour')).data).toBe(4);
    },
    // No quake in a day is still an answer: the feed's own row, count 0.
    empty: {
      body: '{"metadata":{"generated":1731585600000,"title":"USGS All Earthquakes, Past Day","count":0},"features":[]}',
      rows: 1,
    },
  },
  {
    def: openNotify,
    answers: { '/astros.json': 'open_notify/astros_2024-11-14.json' },
    at: '2024-11-14T12:00:00Z',
    rows: 1,
    metrics: ['humans_in_space'],
    serves: async (get) => {
      const humans = await ok(get, '/v1/data/absurd_cosmos/off_world/humans_in_space');
      expect(humans.data).toMatchObject({ count: 12, by_craft: { ISS: 9, Tiangong: 3 } });
    },
    empty: { body: '{"number": 0, "people": [], "message": "success"}', rows: 1 },
  },
  {
    def: federalRegister,
    answers: { '/api/v1/documents/facets/type': 'federal_register/facets_type_2024-11-14.json' },
    at: '2024-11-14T14:00:00Z',
    rows: 1,
    metrics: ['red_tape_output'],
    asked: (q) => expect(q.get('conditions[publication_date][is]')).toBe('2024-11-14'),
    serves: async (get) => {
      const red = await ok(get, '/v1/data/absurd_civic/leviathan_ledger/red_tape_output');
      expect(red.data).toMatchObject({ documents: 130, by_type: { Rule: 21, Notice: 94 } });
    },
    // A day without an issue (a weekend) answers no facet: 0 documents that day.
    empty: { body: '{}', rows: 1 },
  },
  {
    def: nyc311,
    answers: { '/resource/erm2-nwe9.json': 'nyc_311/rat_sightings_2024-11-14.json' },
    at: '2024-11-14T16:00:00Z',
    rows: 48,
    metrics: ['rat_sighting', 'nyc_311_feed'],
    asked: (q) => {
      expect(q.get('$where')).toBe("complaint_type='Rodent' AND created_date >= '2024-11-13T00:00:00'");
      expect(q.get('$select')).toBe('unique_key,created_date,descriptor,borough');
    },
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_civic/city_nervous_system/rat_sightings_today')).data).toBe(13);
    },
    empty: { body: '[]', rows: 1 },
  },
  {
    def: fiscalDataDebt,
    answers: {
      '/services/api/fiscal_service/v2/accounting/od/debt_to_penny':
        'fiscal_data/debt_to_penny_2024-11-14.json',
    },
    at: '2024-11-14T20:00:00Z',
    rows: 2,
    metrics: ['national_debt'],
    asked: (q) => {
      expect(q.get('filter')).toBe('record_date:gte:2024-10-31');
      expect(q.get('sort')).toBe('-record_date');
    },
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_economy/treasury/national_debt')).data).toBe(35974102452345.77);
    },
    empty: { body: '{"data": [], "meta": {"count": 0}}', rows: 0 },
  },
  {
    def: fiscalDataRates,
    answers: {
      '/services/api/fiscal_service/v2/accounting/od/avg_interest_rates':
        'fiscal_data/avg_interest_rates_2024-11-14.json',
    },
    at: '2024-11-14T20:00:00Z',
    rows: 2,
    metrics: ['avg_interest_rate'],
    asked: (q) => expect(q.get('filter')).toBe('record_date:gte:2024-08-06'),
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_economy/treasury/avg_interest_rate')).data).toBe(3.352);
    },
    empty: { body: '{"data": [], "meta": {"count": 0}}', rows: 0 },
  },
  {
    def: noaaTides,
    answers: { '/api/prod/datagetter': 'noaa_tides/water_level_8518750_2024-11-14.json' },
    at: '2024-11-14T12:03:00Z',
    rows: 11,
    metrics: ['water_level'],
    asked: (q) => {
      expect(q.get('station')).toBe('8518750');
      expect(q.get('begin_date')).toMatch(/^20241114 11:0[34]$/);
      expect(q.get('end_date')).toMatch(/^20241114 12:0[34]$/);
    },
    serves: async (get) => {
      expect((await ok(get, '/v1/data/absurd_earth/tides/water_level')).data).toBe(1.496);
    },
    // CO-OPS says "no data" with a 200 and an error object: an empty answer, not a failure.
    empty: {
      body: '{"error": {"message": "No data was found. This product may not be offered at this station at the requested time."}}',
      rows: 0,
    },
  },
];

const settings = (over: Partial<LiveIngestSettings> = {}) =>
  liveSettings({ keys: { ESPN_LICENCE: 'test: loopback recordings only' }, ...over });

describe('world feeds: live connectors on recorded answers over loopback', () => {
  let db: MigratedDatabase;
  let failDb: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  let get: Get;

  const stored = async (on: MigratedDatabase, source: string, metrics: string[]) =>
    Number(
      (
        await sql<{ n: string }>`select count(*)::text as n from data.observations
          where source = ${source} and metric in (${sql.join(metrics)})`.execute(on.db)
      ).rows[0]!.n,
    );
  const sourceOf = (u: Upstream) => u.def.name.replace(/_(coldest|kp|solar_cycle|debt|rates)$/, '');

  beforeAll(async () => {
    [db, failDb] = await Promise.all([
      migratedDatabase('data_live_world'),
      migratedDatabase('data_live_world_fail'),
    ]);
    peer = await startUpstreamPeer();
    const deps = testDeps(db);
    const app = testApp(deps);
    const headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_lw',
      key_id: 'key_lw',
    });
    get = (path) => request(app).get(path).set(headers);
  });
  afterEach(async () => {
    await live?.stop();
    live = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await Promise.all([db.drop(), failDb.drop()]);
  });

  it('lists every world connector in index.ts', () => {
    const names = CONNECTORS.map((c) => c.name);
    for (const u of UPSTREAMS) expect(names).toContain(u.def.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(UPSTREAMS.map((u) => [u.def.name, u.rewrite?.why ?? 'as recorded', u] as const))(
    '%s stores the recorded answer (%s) and its product answers through the app',
    async (name, _as, u) => {
      for (const [path, file] of Object.entries(u.answers)) {
        const recorded = await recording(file);
        peer.answer(path, { body: u.rewrite ? u.rewrite.to(recorded) : recorded });
      }
      const offset = Date.now() - Date.parse(u.at);
      const seen = peer.requests.length;
      const before = await stored(db, sourceOf(u), u.metrics);
      live = createLiveIngest(
        testDeps(db),
        [u.def],
        settings({ urls: { [name]: peer.url } }),
        () => Date.now() - offset,
      );
      live.start();
      await live.firstPolls();
      expect(live.report()[name]).toMatchObject({ state: 'ok', last_rows: u.rows, consecutive_failures: 0 });
      expect((await stored(db, sourceOf(u), u.metrics)) - before).toBe(u.rows);
      const asked = peer.requests.slice(seen);
      expect(asked.map((r) => r.path).sort()).toEqual(Object.keys(u.answers).sort());
      u.asked?.(asked[0]!.query);
      await u.serves(get);
    },
  );

  /** One upstream per connector for the failure tables (a format variant fails the same way). */
  const CONNECTED = UPSTREAMS.filter((u) => !u.rewrite);
  const failures = CONNECTED.flatMap(
    (u) =>
      [
        [
          u.def.name,
          'an error status',
          u,
          { status: 503, body: 'busy' },
          { state: 'failing', kind: 'http_error' },
        ],
        [
          u.def.name,
          'a malformed body',
          u,
          { body: '{"truncated": [1, 2' },
          { state: 'failing', kind: 'malformed' },
        ],
        [
          u.def.name,
          'a rate limit',
          u,
          { status: 429, body: '{"error":"Too Many Requests"}', headers: { 'retry-after': '120' } },
          { state: 'rate_limited', kind: 'rate_limited' },
        ],
      ] as const,
  );

  it.each(failures)('%s: %s writes nothing and says so', async (name, _what, u, answer, expected) => {
    for (const path of Object.keys(u.answers)) peer.answer(path, answer);
    const before = await stored(failDb, sourceOf(u), u.metrics);
    live = createLiveIngest(testDeps(failDb), [u.def], settings({ urls: { [name]: peer.url } }));
    live.start();
    await live.firstPolls();
    const report = live.report()[name]!;
    expect(report).toMatchObject({ state: expected.state, last_error: { kind: expected.kind } });
    if (expected.kind === 'rate_limited')
      expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
        120_000,
      );
    expect(await stored(failDb, sourceOf(u), u.metrics)).toBe(before);
  });

  it.each(CONNECTED.map((u) => [u.def.name, u] as const))(
    '%s: an empty answer is no failure',
    async (name, u) => {
      for (const path of Object.keys(u.answers)) peer.answer(path, { body: u.empty.body });
      live = createLiveIngest(testDeps(failDb), [u.def], settings({ urls: { [name]: peer.url } }));
      live.start();
      await live.firstPolls();
      expect(live.report()[name]).toMatchObject({
        state: u.empty.rows === 0 ? 'empty' : 'ok',
        last_rows: u.empty.rows,
        consecutive_failures: 0,
      });
    },
  );

  it('one failing scoreboard leaves none of the others written', async () => {
    const [first, ...rest] = Object.entries(SCOREBOARDS);
    peer.answer(first![0], { status: 500, body: '' });
    for (const [path, file] of rest) peer.answer(path, { body: await recording(file) });
    const before = await stored(failDb, 'espn', ['basketball_event', 'football_event', 'tennis_event']);
    live = createLiveIngest(testDeps(failDb), [espn], settings({ urls: { espn: peer.url } }));
    live.start();
    await live.firstPolls();
    expect(live.report().espn).toMatchObject({
      state: 'failing',
      last_error: { kind: 'http_error', status: 500 },
    });
    expect(await stored(failDb, 'espn', ['basketball_event', 'football_event', 'tennis_event'])).toBe(before);
  });

  it.each([noaaSwpcKp, noaaTides])(
    '$name: polling the same answer again stores no row twice',
    async (def) => {
      const u = CONNECTED.find((x) => x.def === def)!;
      for (const [path, file] of Object.entries(u.answers))
        peer.answer(path, { body: await recording(file) });
      const before = await stored(failDb, sourceOf(u), u.metrics);
      live = createLiveIngest(
        testDeps(failDb),
        [def],
        settings({ urls: { [def.name]: peer.url }, everyMs: { [def.name]: 20 } }),
      );
      live.start();
      const polled = () => peer.requests.filter((r) => r.path === Object.keys(u.answers)[0]).length;
      const start = polled();
      const end = Date.now() + 5000;
      while (polled() < start + 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      await live.stop();
      expect(polled()).toBeGreaterThanOrEqual(start + 3);
      expect(live.report()[def.name]).toMatchObject({ state: 'ok', consecutive_failures: 0 });
      expect((await stored(failDb, sourceOf(u), u.metrics)) - before).toBe(u.rows);
    },
  );

  it('the catalogue says where a source restricts use', async () => {
    const res = await get('/v1/catalog');
    expect(res.status).toBe(200);
    const products = (
      res.body.data.categories as { category: string; products: { product: string; licence?: string }[] }[]
    ).flatMap((c) => c.products.map((p) => [`${c.category}/${p.product}`, p.licence] as const));
    const licence = new Map(products);
    expect(licence.get('sports/tennis')).toMatch(/unofficial.*non-commercial/);
    expect(licence.get('weather/observations')).toMatch(/CC BY 4\.0.*non-commercial/);
    expect(licence.get('absurd_earth/weather')).toMatch(/Open-Meteo/);
    expect(licence.get('absurd_cosmos/solar_cycle')).toMatch(/CC BY-NC 4\.0/);
    expect(licence.get('absurd_cosmos/restless_earth')).toBeUndefined();
  });

  it('does not start espn without ESPN_LICENCE, and says why', async () => {
    live = createLiveIngest(testDeps(failDb), [espn], settings({ keys: {}, urls: { espn: peer.url } }));
    live.start();
    await live.firstPolls();
    expect(live.report().espn).toMatchObject({ state: 'off', note: 'not started: set ESPN_LICENCE' });
  });

  it('a CO-OPS error other than "no data" is the upstream refusing the query', async () => {
    peer.answer('/api/prod/datagetter', {
      body: '{"error": {"message": "Wrong Station ID: Check Station ID or Station is not active."}}',
    });
    live = createLiveIngest(testDeps(failDb), [noaaTides], settings({ urls: { noaa_tides: peer.url } }));
    live.start();
    await live.firstPolls();
    expect(live.report().noaa_tides).toMatchObject({
      state: 'failing',
      last_error: { kind: 'http_error', message: expect.stringMatching(/Wrong Station ID/) },
    });
  });
});
