import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { espn } from '../../src/adapters/connectors/feeds/espn.js';
import { CONNECTORS } from '../../src/adapters/connectors/index.js';
import { noaaSwpcKp } from '../../src/adapters/connectors/feeds/noaa-swpc.js';
import { noaaTides } from '../../src/adapters/connectors/feeds/noaa-tides.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { testApp, testDeps } from '../support/app.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { liveSettings } from '../support/live.js';
import { SCOREBOARDS, UPSTREAMS, type Get, type Upstream } from '../support/world-upstreams.js';
import { recording } from '../support/recordings.js';

/**
 * The world feeds' live connectors (weather, sports, the absurd_ feeds), each against a real HTTP
 * server on loopback playing the recorded answer in the upstream's own format, through the runner
 * (createLiveIngest) into Postgres, and read back through the data app. The poll's clock is set to
 * the recording's instant, so the date windows of the queries are those of the recording. The
 * upstreams, their recordings and what each product answers: ../support/world-upstreams.ts.
 */

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
        const recorded = recording(file);
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
    for (const [path, file] of rest) peer.answer(path, { body: recording(file) });
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
      for (const [path, file] of Object.entries(u.answers)) peer.answer(path, { body: recording(file) });
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
