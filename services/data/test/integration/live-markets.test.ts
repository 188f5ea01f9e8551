import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamAnswer, type UpstreamPeer } from '@meridian/test-peers';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { ecb } from '../../src/adapters/connectors/feeds/ecb.js';
import { eia } from '../../src/adapters/connectors/feeds/eia.js';
import { farside } from '../../src/adapters/connectors/feeds/farside.js';
import { fred, fredIndices } from '../../src/adapters/connectors/feeds/fred.js';
import { lbma } from '../../src/adapters/connectors/feeds/lbma.js';
import { pubmed } from '../../src/adapters/connectors/feeds/pubmed.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { liveSettings } from '../support/live.js';
import {
  FAMILIES,
  FRED_KEY,
  FRED_PATH,
  KEYS,
  pathsOf,
  PUBMED_PATH,
  type Family,
} from '../support/market-families.js';
import { recording } from '../support/recordings.js';

describe('live market, macro and medical connectors against their recorded upstreams on loopback', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  let headers: Record<string, string>;

  const settings = (def: ConnectorDefinition, over: Partial<LiveIngestSettings> = {}) =>
    liveSettings({ urls: { [def.name]: peer.url }, only: [def.name], keys: KEYS, ...over });
  const stored = async ({ source, metrics }: Family) =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from data.observations where source = ${source} and metric = any(${metrics})`.execute(
          db.db,
        )
      ).rows[0]!.n,
    );
  const pollOnce = async (def: ConnectorDefinition, over: Partial<LiveIngestSettings> = {}) => {
    const deps = testDeps(db);
    live = createLiveIngest(deps, [def], settings(def, over));
    deps.live = live;
    live.start();
    await live.firstPolls();
    return { report: live.report()[def.name]!, app: testApp(deps) };
  };

  beforeAll(async () => {
    db = await migratedDatabase('data_live_markets');
    peer = await startUpstreamPeer();
    headers = await callerHeaders({ plan: 'free', auth: 'api_key', account_id: 'acct_lm', key_id: 'key_lm' });
  });
  afterEach(async () => {
    await live?.stop();
    live = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await db.drop();
  });

  // First, on the empty database: a failing poll must leave nothing of itself behind.
  describe.each(FAMILIES.map((f) => [f.def.name, f] as const))('%s', (_name, family) => {
    const everyPath = async (...answers: UpstreamAnswer[]) => {
      for (const path of await pathsOf(family)) peer.answer(path, ...answers);
    };

    it('an error status: failing, nothing written, even when an earlier request of the poll succeeded', async () => {
      const answers = await family.answers();
      const requests = answers.reduce((n, [, bodies]) => n + bodies.length, 0);
      const unavailable = { status: 503, body: 'Service Unavailable' };
      // A poll of several requests: the first answers its recording, the rest 503 (a half poll).
      for (const [i, [path, bodies]] of answers.entries())
        if (i > 0 || requests === 1) peer.answer(path, unavailable);
        else peer.answer(path, { body: bodies[0]! }, unavailable);
      const { report } = await pollOnce(family.def);
      expect(report).toMatchObject({ state: 'failing', last_error: { kind: 'http_error', status: 503 } });
      expect(await stored(family)).toBe(0);
    });

    it('a malformed body: failing as malformed, nothing written', async () => {
      const before = await stored(family);
      await everyPath({ body: family.malformed });
      const { report } = await pollOnce(family.def);
      expect(report).toMatchObject({ state: 'failing', last_error: { kind: 'malformed' } });
      expect(await stored(family)).toBe(before);
    });

    it('an empty answer in its own format: empty, not a failure', async () => {
      await everyPath({ body: family.empty });
      const { report } = await pollOnce(family.def);
      expect(report).toMatchObject({ state: 'empty', consecutive_failures: 0, last_rows: 0 });
    });

    it('a 429 with Retry-After: rate limited, no poll before the upstream allows it', async () => {
      await everyPath({ status: 429, body: 'Too Many Requests', headers: { 'retry-after': '120' } });
      const { report } = await pollOnce(family.def);
      expect(report).toMatchObject({
        state: 'rate_limited',
        last_error: { kind: 'rate_limited', status: 429 },
      });
      expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
        120_000,
      );
    });

    it('the recorded answer: every row stored', async () => {
      for (const [path, bodies] of await family.answers())
        peer.answer(path, ...bodies.map((body) => ({ body })));
      const { report } = await pollOnce(family.def);
      expect(report).toMatchObject({ state: 'ok', last_rows: family.rows, consecutive_failures: 0 });
    });
  });

  const ok200 = async (app: ReturnType<typeof testApp>, path: string) => {
    const res = await request(app).get(path).set(headers);
    expect(res.status).toBe(200);
    return res.body as {
      data: Record<string, unknown>;
      provenance: { method: string };
      meta: { venues: string[] };
    };
  };
  const serve = async (family: Family) => {
    for (const [path, bodies] of await family.answers())
      peer.answer(path, ...bodies.map((body) => ({ body })));
  };
  const family = (def: ConnectorDefinition) => FAMILIES.find((f) => f.def === def)!;

  it('crypto/etf_flows answers the Farside page; the connector runs only when named', async () => {
    await serve(family(farside));
    const off = createLiveIngest(testDeps(db), [farside], settings(farside, { only: [] }));
    off.start();
    await off.firstPolls();
    expect(off.report().farside).toMatchObject({
      state: 'off',
      note: expect.stringMatching(/INGEST_CONNECTORS/),
    });
    const { app, report } = await pollOnce(farside);
    // Once named, it runs, and /ready still says what its terms ask.
    expect(report).toMatchObject({ state: 'ok', note: expect.stringMatching(/permission/) });
    const flows = await ok200(app, '/v1/data/crypto/etf_flows/flow_by_etf');
    expect(flows.data).toMatchObject({ day: '2024-11-14', flows: { IBIT: 337_600_000, FBTC: -179_200_000 } });
    const total = await ok200(app, '/v1/data/crypto/etf_flows/net_flow');
    expect(total.data.value).toBe(-120_600_000);
  });

  it('fx/spot answers the ECB file, says "ECB reference rates", and reads only the daily file after the first poll', async () => {
    const hist = recording('ecb/eurofxref-hist-90d_2024-11-14.xml');
    peer.answer('/stats/eurofxref/eurofxref-hist-90d.xml', { body: hist });
    // The daily file is the same envelope holding only the newest fixing.
    peer.answer('/stats/eurofxref/eurofxref-daily.xml', {
      body: hist.replace(/\s*<Cube time='2024-11-13'>[\s\S]*?<\/Cube>/, ''),
    });
    const { app } = await pollOnce(ecb, { everyMs: { ecb: 20 } });
    const asked = () => peer.requests.filter((r) => r.path === '/stats/eurofxref/eurofxref-daily.xml').length;
    const end = Date.now() + 5000;
    while (asked() === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(asked()).toBeGreaterThan(0);
    const rate = await ok200(app, '/v1/data/fx/spot/reference_rate?entity=EUR-USD');
    expect(rate.data).toMatchObject({ rate: 1.054, fixing_day: '2024-11-14' });
    expect(rate.provenance.method).toMatch(/ECB reference rates/);
    const change = await ok200(app, '/v1/data/fx/spot/change_24h?entity=EUR-USD');
    expect(change.data.change_pct).toBeCloseTo((1.054 / 1.0564 - 1) * 100, 4);
  });

  it('macro and copper answer FRED series; the key is sent but never shown', async () => {
    await serve(family(fred));
    const { app } = await pollOnce(fred);
    const sent = peer.requests.filter((r) => r.path === FRED_PATH).slice(-3);
    expect(sent.map((r) => r.query.get('series_id'))).toEqual(['M2SL', 'CPIAUCSL', 'PCOPPUSDM']);
    expect(
      sent.every((r) => r.query.get('api_key') === FRED_KEY && r.query.get('file_type') === 'json'),
    ).toBe(true);
    expect((await ok200(app, '/v1/data/macro/money/m2_money_supply')).data.value).toBe(21250.3e9);
    const copper = await ok200(app, '/v1/data/commodities/metals/copper');
    expect(copper.data).toMatchObject({ price: 9556.45, day: '2024-10-01' });
    expect(copper.meta.venues).toEqual(['fred']);
    // A failing upstream: the message names the query's parameters, never the key's value.
    peer.answer(FRED_PATH, { status: 500, body: `internal error for api_key=${FRED_KEY}` });
    await live!.stop();
    const failing = await pollOnce(fred);
    expect(failing.report.last_error!.message).toMatch(/series_id&api_key&file_type/);
    const ready = await request(failing.app).get('/ready');
    expect(JSON.stringify(ready.body)).not.toContain(FRED_KEY);
    expect(ready.body.details.connectors.fred).toMatchObject({ state: 'failing' });
  });

  it('without FRED_API_KEY the FRED connectors do not start and say so', async () => {
    const none = createLiveIngest(testDeps(db), [fred, fredIndices], {
      ...settings(fred),
      only: [],
      keys: {},
    });
    none.start();
    await none.firstPolls();
    expect(none.report()).toMatchObject({
      fred: { state: 'off', note: 'not started: set FRED_API_KEY' },
      fred_indices: { state: 'off', note: 'not started: set FRED_API_KEY' },
    });
  });

  it('stocks/indices answers the FRED closes', async () => {
    await serve(family(fredIndices));
    const { app } = await pollOnce(fredIndices);
    const spx = await ok200(app, '/v1/data/stocks/indices/sp500');
    expect(spx.data).toMatchObject({ level: 5949.17, day: '2024-11-14' });
    expect(spx.data.change_pct).toBeCloseTo((5949.17 / 5985.38 - 1) * 100, 4);
    expect(spx.provenance.method).toMatch(/FRED series SP500/);
    expect((await ok200(app, '/v1/data/stocks/indices/nasdaq')).data.level).toBe(19107.65);
  });

  it('commodities answer the EIA API and the LBMA files', async () => {
    await serve(family(eia));
    const energy = await pollOnce(eia);
    const sent = peer.requests.filter((r) => r.path.startsWith('/v2/')).slice(-2);
    expect(sent.map((r) => r.query.get('facets[series][]'))).toEqual(['RWTC', 'RNGWHHD']);
    expect((await ok200(energy.app, '/v1/data/commodities/energy/wti_crude')).data.price).toBe(68.12);
    expect((await ok200(energy.app, '/v1/data/commodities/energy/natural_gas')).data.price).toBe(2.47);
    await live!.stop();
    await serve(family(lbma));
    const metals = await pollOnce(lbma);
    expect((await ok200(metals.app, '/v1/data/commodities/metals/gold')).data.price).toBe(2553.9);
    expect((await ok200(metals.app, '/v1/data/commodities/metals/silver')).data.price).toBe(30.14);
  });

  it("medical/literature counts the newest complete day, with NCBI's tool and email", async () => {
    await serve(family(pubmed));
    const { app } = await pollOnce(pubmed);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const sent = peer.requests.filter((r) => r.path === PUBMED_PATH).slice(-6);
    expect(sent[0]!.query.get('term')).toBe(`"${yesterday.replaceAll('-', '/')}"[Date - Entry]`);
    expect(sent[1]!.query.get('term')).toMatch(/AND "review"\[Publication Type\]$/);
    expect(sent[0]!.query.get('tool')).toBe('meridian-data');
    expect(sent[0]!.query.get('email')).toBe('ops@meridian.test');
    expect(sent[0]!.query.get('retmax')).toBe('0');
    const count = await ok200(app, '/v1/data/medical/literature/publication_count');
    expect(count.data).toMatchObject({ day: yesterday, count: 4218 });
  });
});
