import { expect } from '@jest/globals';
import type request from 'supertest';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { espn } from '../../src/adapters/connectors/feeds/espn.js';
import { federalRegister } from '../../src/adapters/connectors/feeds/federal-register.js';
import { fiscalDataDebt, fiscalDataRates } from '../../src/adapters/connectors/feeds/fiscal-data.js';
import { noaaSwpcKp, noaaSwpcSolarCycle } from '../../src/adapters/connectors/feeds/noaa-swpc.js';
import { noaaTides } from '../../src/adapters/connectors/feeds/noaa-tides.js';
import { nyc311 } from '../../src/adapters/connectors/feeds/nyc-311.js';
import { openMeteo, openMeteoColdest } from '../../src/adapters/connectors/feeds/open-meteo.js';
import { openNotify } from '../../src/adapters/connectors/feeds/open-notify.js';
import { usgs } from '../../src/adapters/connectors/feeds/usgs.js';

/**
 * The world feeds' upstreams as live-world.test.ts plays them: per connector, the recorded answers
 * it is served, the rows they store and what its product then answers through the data app.
 */

export type Get = (path: string) => Promise<request.Response>;

export interface Upstream {
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

export const SCOREBOARDS = {
  '/apis/site/v2/sports/basketball/nba/scoreboard': 'espn/basketball_nba_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/soccer/eng.1/scoreboard': 'espn/soccer_eng.1_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/soccer/usa.1/scoreboard': 'espn/soccer_usa.1_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/tennis/atp/scoreboard': 'espn/tennis_atp_scoreboard_2024-11-14.json',
  '/apis/site/v2/sports/tennis/wta/scoreboard': 'espn/tennis_wta_scoreboard_2024-11-14.json',
};

export const UPSTREAMS: Upstream[] = [
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
