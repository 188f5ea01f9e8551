// Data answers kept by the gateway (its edge in this process), with this service and the real identity: byte for byte what the
// data service recomputes at the same instant, dropped at a minute boundary and after an ingest, and
// never served past the key's rate limit or the plan gate.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createNatsBus, newEvent, type Bus } from '@meridian/bus';
import { TEST_NATS_URL, waitFor } from '@meridian/bus/testing';
import { EVENTS, ingestBatchSchema, STREAMS, type IngestBatchInput } from '@meridian/contracts';
import { startServer, type RunningServer } from '@meridian/http-kit';
import { callerHeaders } from '@meridian/http-kit/testing';
import { start as startGateway } from '../../../../gateway/src/main.js';
import {
  DATA,
  startEdge,
  type Edge,
  type Started,
} from '../../../../gateway/test/integration/support/edge.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { startAnswerNotices } from '../../src/flows/answer-notices.js';
import { testApp, testDeps } from '../support/app.js';

const TEMPERATURE = '/v1/data/weather/observations/temperature?entity=london';
const WIND = '/v1/data/weather/observations/wind_speed?entity=london';
const PRECIPITATION = '/v1/data/weather/observations/precipitation?entity=london';
const TRADES = '/v1/data/crypto/spot/trades?entity=BTC-USD&source=binanceus';
const MINUTE = 60_000;
/** Every clock of this process but Date runs: the gateway, the data service and the test read one instant. */
const REAL_TIMERS = [
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

describe('data answers kept at the edge', () => {
  let edge: Edge;
  let bus: Bus;
  let db: MigratedDatabase;
  let deps: ReturnType<typeof testDeps>;
  let data: RunningServer;
  let recomputing: RunningServer;
  let fresh: ReturnType<typeof testDeps>;
  let gateway: Started;
  let ultra: { key: string; account: string };
  let free: string;
  /** A minute boundary ahead of the wall clock: the instants of the test are around it. */
  const boundary = Math.ceil(Date.now() / MINUTE) * MINUTE + 2 * MINUTE;

  beforeAll(async () => {
    edge = await startEdge('gw_kept_answers');
    bus = await createNatsBus({ url: TEST_NATS_URL, name: 'kept-answers-test', namespace: edge.namespace });
    db = await migratedDatabase('data_edge_kept_answers');
    // This service keeping its answers (as on PGlite: until the minute ends or an ingest), and one on
    // the same rows recomputing every answer; both at the process's clock, which the test sets.
    const now = () => Date.now();
    deps = testDeps(db, { DATA_ANSWER_CACHE_MS: '60000' }, now);
    data = await startServer(testApp(deps), { port: 0 });
    fresh = testDeps(db, { DATA_ANSWER_CACHE_MS: '0', DATA_PRICE_CACHE_MS: '0' }, now);
    recomputing = await startServer(testApp(fresh), { port: 0 });
    const env = edge.gatewayEnv();
    delete (env as Record<string, string>).REDIS_URL;
    gateway = await startGateway({
      ...env,
      DATA_URL: data.url,
      RATE_LIMITS: 'free=4',
      DATA_EDGE_CACHE_MS: '1000',
    });
    ultra = await ultraKey();
    free = (await edge.newKey((await edge.signIn('kept-free@example.com')).cookie)).key;
    jest.useFakeTimers({ doNotFake: [...REAL_TIMERS] });
  }, 120_000);

  afterAll(async () => {
    jest.useRealTimers();
    await gateway?.close();
    await recomputing?.close();
    await data?.close();
    await db?.drop();
    await bus?.close();
    await edge?.close();
  });

  /** A key of an account billing moved to ultra, once the edge (replica a, which echoes the caller) sees it. */
  async function ultraKey() {
    const { key } = await edge.newKey();
    const caller = async () =>
      (
        (await (await fetch(`${edge.a.url}${DATA}`, { headers: { 'x-api-key': key } })).json()) as {
          meta: { caller: { account_id: string; plan: string } };
        }
      ).meta.caller;
    const account = (await caller()).account_id;
    await bus.ensureStream(STREAMS.billing);
    await bus.publish(
      newEvent('billing', EVENTS.billingPlanChanged, {
        account_id: account,
        plan: 'ultra',
        changed_at: new Date().toISOString(),
      }),
    );
    await waitFor(async () => (await caller()).plan === 'ultra', {
      timeoutMs: 20_000,
      what: 'the ultra plan',
    });
    return { key, account };
  }

  /** What a connector or the replay sends (rpc.data.ingest.v1 lands here). */
  async function ingest(batch: IngestBatchInput): Promise<void> {
    const done = await deps.ingestor.ingest(ingestBatchSchema.parse(batch));
    expect(done.ok).toBe(true);
  }

  const observation = (metric: string, at: number, value: number) => ({
    kind: 'observations' as const,
    source: 'open_meteo',
    rows: [{ key: 'london', metric, ts: new Date(at).toISOString(), value, payload: {} }],
  });

  const throughGateway = async (path: string, key = ultra.key) => {
    const res = await fetch(`${gateway.url}${path}`, { headers: { 'x-api-key': key } });
    return { status: res.status, text: await res.text(), keeping: res.headers.get('x-answer-keeping') };
  };

  const recomputed = async (path: string) => {
    const res = await fetch(`${recomputing.url}${path}`, {
      headers: await callerHeaders({
        plan: 'ultra',
        auth: 'api_key',
        account_id: ultra.account,
        key_id: 'k',
      }),
    });
    return { status: res.status, text: await res.text() };
  };

  const hits = async () => {
    const text = await (await fetch(gateway.metricsUrl)).text();
    return Number(/gateway_data_kept_answers_total\{outcome="hit"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
  };

  /** At `now`: each path through the gateway equals the data service's recomputation, byte for byte. */
  async function sameAt(now: number, paths: string[]): Promise<void> {
    jest.setSystemTime(now);
    for (const path of paths) {
      const [via, fresh] = [await throughGateway(path), await recomputed(path)];
      expect({ path, status: via.status, text: via.text }).toEqual({ path, status: 200, text: fresh.text });
      expect(via.keeping).toBeNull();
    }
  }

  it('serves kept answers identical to recomputed ones within a minute, across its boundary and after an ingest', async () => {
    jest.setSystemTime(boundary - 50_000);
    await ingest(observation('temperature', boundary - 55_000, 7.5));
    await ingest(observation('wind_speed', boundary - 55_000, 3.25));
    await ingest(observation('precipitation', boundary - 55_000, 0.5));
    await ingest({
      kind: 'trades',
      source: 'binanceus',
      symbol: 'BTC-USD',
      rows: [
        {
          trade_id: 't1',
          ts: new Date(boundary - 52_000).toISOString(),
          price: 100_000.5,
          size: 0.25,
          taker_side: 'buy',
        },
      ],
    });
    const paths = [TEMPERATURE, WIND, TRADES];
    const before = await hits();
    await sameAt(boundary - 45_000, paths);
    await sameAt(boundary - 44_700, paths);
    await sameAt(boundary - 44_001, paths);
    // Served from the edge: the first read of each path was kept, the next two were not forwarded.
    expect((await hits()) - before).toBe(2 * paths.length);
    // The edge's own bound: a second later each is asked again.
    await sameAt(boundary - 43_000, paths);
    await sameAt(boundary - 1, paths);
    // The data service's servable_until: nothing kept before a minute boundary is served after it.
    await sameAt(boundary, paths);
    await sameAt(boundary + 1, paths);
    await sameAt(boundary + 400, paths);
    // An ingest: the next answer of the product the gateway gets (a question not kept) names the new
    // generation, and what it kept under the old one is dropped at once, within its second.
    await ingest(observation('temperature', boundary + 200, 8.5));
    jest.setSystemTime(boundary + 500);
    expect((await throughGateway(PRECIPITATION)).status).toBe(200);
    const kept = await hits();
    await sameAt(boundary + 500, [...paths, PRECIPITATION]);
    // Only the trades (another product) and the precipitation were served from the edge.
    expect((await hits()) - kept).toBe(2);
    expect(JSON.parse((await throughGateway(TEMPERATURE)).text)).toMatchObject({ data: 8.5 });
  }, 120_000);

  it('refuses a caller over its rate limit or below the plan gate, the answer kept or not', async () => {
    jest.setSystemTime(boundary + 20_000);
    // Kept for ultra, still 403 for a free key (a token of its budget spent, as on any call).
    expect((await throughGateway(TRADES)).status).toBe(200);
    const forbidden = await throughGateway(TRADES, free);
    expect([forbidden.status, forbidden.text]).toEqual([403, expect.stringContaining('tier_forbidden')]);
    const before = await hits();
    const asked = [];
    for (let i = 0; i < 5; i++) asked.push((await throughGateway(TEMPERATURE, free)).status);
    // free=4 a minute: the first read is kept, the next two served from the edge, then 429.
    expect(asked).toEqual([200, 200, 200, 429, 429]);
    expect((await hits()) - before).toBe(2);
  }, 60_000);

  it("drops what it kept of a product, at the edge and in the data service, on another replica's notice", async () => {
    // Both replicas on the system's NATS: the one behind the gateway, and the recomputing one as a
    // second replica that stores rows; each tells the others of what it stores (flows/answer-notices.ts).
    const other = await createNatsBus({ url: TEST_NATS_URL, name: 'data-b', namespace: edge.namespace });
    const notices = [
      await startAnswerNotices({ ...deps, bus }, 'data'),
      await startAnswerNotices({ ...fresh, bus: other }, 'data'),
    ];
    try {
      jest.setSystemTime(boundary + 30_000);
      await sameAt(boundary + 30_000, [TEMPERATURE]);
      const before = await hits();
      await sameAt(boundary + 30_000, [TEMPERATURE]);
      expect((await hits()) - before).toBe(1);
      // Stored by the other replica: the clock stands still, so neither the edge's second nor the data
      // service's minute would end what they kept; only the notice does.
      const stored = await fresh.ingestor.ingest(
        ingestBatchSchema.parse(observation('temperature', boundary + 29_000, 9.5)),
      );
      expect(stored.ok).toBe(true);
      await waitFor(async () => JSON.parse((await throughGateway(TEMPERATURE)).text).data === 9.5, {
        timeoutMs: 10_000,
        what: "the other replica's temperature through the gateway",
      });
      await sameAt(boundary + 30_000, [TEMPERATURE]);
    } finally {
      for (const n of notices) await n.close();
      await other.close();
    }
  }, 60_000);
});
