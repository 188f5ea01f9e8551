import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { blockchainInfo } from '../../src/adapters/connectors/feeds/blockchain-info.js';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { liveSettings, until } from '../support/live.js';
import { recording } from '../support/recordings.js';

/** A connector of the test's own: a JSON list of numbers at /list, stored as observations. */
const listed = (name: string, extra: 'none' | 'refused' = 'none'): ConnectorDefinition => ({
  name,
  products: ['novelty/test'],
  url: 'http://127.0.0.1:9',
  cadenceMs: 60_000,
  open: (url) => async (http) => {
    const values = (await http.json(`${url}/list`)) as number[];
    const rows = values.map((value, i) => ({
      key: name,
      metric: 'test_value',
      ts: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      value,
    }));
    const obs = { kind: 'observations' as const, source: name, rows };
    if (extra === 'none') return [obs];
    // A market the catalogue does not list: ingestion refuses it, so the poll must write nothing.
    const candle = {
      ts: rows[0]?.ts ?? new Date(0).toISOString(),
      open: 1,
      high: 1,
      low: 1,
      close: 1,
      volume: 1,
    };
    return [
      obs,
      { kind: 'candles' as const, source: name, symbol: 'ZZZ-USD', interval: '1m' as const, rows: [candle] },
    ];
  },
});

describe('live connectors against upstreams on loopback', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  let stats: string;
  const settings = (over: Partial<LiveIngestSettings> = {}) => liveSettings({ timeoutMs: 500, ...over });
  const stored = async (source: string) =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from data.observations where source = ${source}`.execute(db.db)
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    db = await migratedDatabase('data_live_ingest');
    peer = await startUpstreamPeer();
    stats = recording('blockchain_info/stats_2024-11-14.json');
  });
  afterEach(async () => {
    await live?.stop();
    live = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await db.drop();
  });

  it('stores the recorded answer, serves it, and shows the connector in /ready and /metrics', async () => {
    peer.answer('/stats', { body: stats });
    const deps = testDeps(db);
    live = createLiveIngest(deps, [blockchainInfo], settings({ urls: { blockchain_info: peer.url } }));
    deps.live = live;
    live.start();
    await live.firstPolls();
    expect(live.report().blockchain_info).toMatchObject({
      state: 'ok',
      last_rows: 4,
      consecutive_failures: 0,
    });
    const app = testApp(deps);
    const headers = await callerHeaders({
      plan: 'free',
      auth: 'api_key',
      account_id: 'acct_li',
      key_id: 'key_li',
    });
    const hashrate = await request(app).get('/v1/data/crypto/network/hashrate').set(headers);
    expect(hashrate.status).toBe(200);
    expect(hashrate.body.data).toBeCloseTo(748.4165, 3);
    const ready = await request(app).get('/ready');
    expect(ready.body.details.connectors.blockchain_info).toMatchObject({
      state: 'ok',
      products: ['crypto/network'],
    });
    const metrics = await request(app).get('/metrics');
    expect(metrics.text).toMatch(
      /data_connector_polls_total\{connector="blockchain_info",outcome="ok"[^}]*\} 1/,
    );
    expect(metrics.text).toMatch(/data_connector_up\{connector="blockchain_info"[^}]*\} 1/);
  });

  it('backs off on an error status and recovers when the upstream does', async () => {
    peer.answer('/stats', { status: 500, body: 'oops' }, { status: 502, body: '' }, { body: stats });
    live = createLiveIngest(
      testDeps(db),
      [blockchainInfo],
      settings({ urls: { blockchain_info: peer.url }, everyMs: { blockchain_info: 20 } }),
    );
    live.start();
    await live.firstPolls();
    expect(live.report().blockchain_info).toMatchObject({
      state: 'failing',
      consecutive_failures: 1,
      last_error: { kind: 'http_error', status: 500 },
    });
    await until(
      () => live!.report().blockchain_info!,
      (r) => r.state === 'ok',
    );
    expect(live.report().blockchain_info!.last_error).toMatchObject({ status: 502 });
  });

  it('calls a body it cannot read malformed and writes nothing', async () => {
    peer.answer('/list', { body: '[1, 2, ' });
    const before = await stored('malformed_test');
    live = createLiveIngest(
      testDeps(db),
      [listed('malformed_test')],
      settings({ urls: { malformed_test: peer.url } }),
    );
    live.start();
    await live.firstPolls();
    expect(live.report().malformed_test).toMatchObject({
      state: 'failing',
      last_error: { kind: 'malformed' },
    });
    peer.answer('/stats', { body: '{"timestamp": "soon"}' });
    const stats2 = createLiveIngest(
      testDeps(db),
      [blockchainInfo],
      settings({ urls: { blockchain_info: peer.url } }),
    );
    stats2.start();
    await stats2.firstPolls();
    await stats2.stop();
    expect(stats2.report().blockchain_info).toMatchObject({
      state: 'failing',
      last_error: { kind: 'malformed' },
    });
    expect(await stored('malformed_test')).toBe(before);
  });

  it('calls an empty answer empty, not a failure', async () => {
    peer.answer('/list', { body: '[]' });
    live = createLiveIngest(
      testDeps(db),
      [listed('empty_test')],
      settings({ urls: { empty_test: peer.url } }),
    );
    live.start();
    await live.firstPolls();
    expect(live.report().empty_test).toMatchObject({
      state: 'empty',
      consecutive_failures: 0,
      last_success_at: null,
    });
  });

  it.each([429, 418, 451])('waits as long as a %i answer asks before polling again', async (status) => {
    peer.answer('/list', { status, body: '{"code":-1003}', headers: { 'retry-after': '30' } });
    const name = `limited_${status}`;
    live = createLiveIngest(testDeps(db), [listed(name)], settings({ urls: { [name]: peer.url } }));
    const asked = () => peer.requests.filter((r) => r.path === '/list').length;
    live.start();
    await live.firstPolls();
    const report = live.report()[name]!;
    expect(report).toMatchObject({ state: 'rate_limited', last_error: { kind: 'rate_limited', status } });
    expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
      status === 451 ? 3_600_000 : 30_000,
    );
    const seen = asked();
    await new Promise((r) => setTimeout(r, 300));
    expect(asked()).toBe(seen);
  });

  it('writes nothing of a poll when one of its batches is refused', async () => {
    peer.answer('/list', { body: '[1, 2, 3]' });
    live = createLiveIngest(
      testDeps(db),
      [listed('half_test', 'refused')],
      settings({ urls: { half_test: peer.url } }),
    );
    live.start();
    await live.firstPolls();
    expect(live.report().half_test).toMatchObject({ state: 'failing', last_error: { kind: 'refused' } });
    expect(await stored('half_test')).toBe(0);
  });

  it('keeps the others polling when one upstream hangs or fails', async () => {
    peer.answer('/list', { body: '[5]' });
    peer.answer('/stats', { body: stats, delayMs: 2000 });
    const deps = testDeps(db);
    live = createLiveIngest(
      deps,
      [blockchainInfo, listed('healthy_test')],
      settings({
        urls: { blockchain_info: peer.url, healthy_test: peer.url },
        everyMs: { healthy_test: 20 },
        timeoutMs: 300,
      }),
    );
    live.start();
    await until(
      () => live!.report().healthy_test!,
      (r) => r.state === 'ok',
    );
    await live.firstPolls();
    expect(live.report().blockchain_info).toMatchObject({
      state: 'failing',
      last_error: { kind: 'unreachable' },
    });
    expect(live.report().blockchain_info!.last_error!.message).toMatch(/no answer in 300 ms/);
    expect(live.report().healthy_test!.state).toBe('ok');
  });

  it('does not start a connector whose key is missing, and says which', async () => {
    const keyed = { ...listed('keyed_test'), needs: ['FRED_API_KEY' as const] };
    live = createLiveIngest(testDeps(db), [keyed], settings());
    live.start();
    await live.firstPolls();
    expect(live.report().keyed_test).toMatchObject({ state: 'off', note: 'not started: set FRED_API_KEY' });
  });

  it('polls each upstream from one replica only, and another takes over when it stops', async () => {
    peer.answer('/list', { body: '[7]' });
    const asked = () => peer.requests.filter((r) => r.path === '/list').length;
    const replica = () =>
      createLiveIngest(
        testDeps(db),
        [listed('leased_test')],
        settings({ urls: { leased_test: peer.url }, everyMs: { leased_test: 50 } }),
      );
    const first = replica();
    const second = replica();
    first.start();
    await first.firstPolls();
    second.start();
    await second.firstPolls();
    expect(first.report().leased_test!.state).toBe('ok');
    expect(second.report().leased_test).toMatchObject({ state: 'standby', polled_by: expect.any(String) });
    const before = asked();
    await new Promise((r) => setTimeout(r, 400));
    // One replica polling every 50 ms: about 8 polls in 400 ms, never two per turn.
    expect(asked() - before).toBeLessThanOrEqual(10);
    expect(second.report().leased_test!.state).toBe('standby');
    await first.stop();
    live = second;
    await until(
      () => second.report().leased_test!,
      (r) => r.state === 'ok',
    );
  });
});
