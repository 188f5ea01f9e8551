import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { binanceFutures } from '../../src/adapters/connectors/derivatives/binance-futures.js';
import { bybitFutures } from '../../src/adapters/connectors/derivatives/bybit-futures.js';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testDeps } from '../support/app.js';
import { until } from '../support/live.js';
import {
  API,
  deribit,
  derivativesSettings,
  okx,
  OKX_FUNDING,
  OKX_MARKS,
  OPTIONS,
  rpc,
  serveDeribit,
  serveOkx,
  T,
} from '../support/live-derivatives.js';
import { recording } from '../support/recordings.js';

/**
 * Each live derivatives connector (Deribit, Binance, Bybit and OKX futures) against its upstream's
 * samples on a loopback peer, through the runner into Postgres: what it stores, and how it reports
 * refusals, rate limits, empty and malformed answers. What the stored rows answer:
 * live-derivatives-answers.test.ts.
 */
describe('live derivatives connectors against upstreams on loopback', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  const settings = (over: Partial<LiveIngestSettings> = {}) => derivativesSettings(peer, over);
  const run = async (def: ConnectorDefinition, over: Partial<LiveIngestSettings> = {}) => {
    live = createLiveIngest(testDeps(db), [def], settings(over));
    live.start();
    await live.firstPolls();
    return live.report()[def.name]!;
  };
  const count = async (table: string, source: string) =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from ${sql.table(`data.${table}`)} where source = ${source}`.execute(
          db.db,
        )
      ).rows[0]!.n,
    );

  const greeksOf = async (instrument: string) =>
    db.db
      .selectFrom('option_marks')
      .select(['delta', 'gamma', 'vega', 'theta'])
      .where('instrument', '=', instrument)
      .orderBy('ts', 'desc')
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    db = await migratedDatabase('data_live_deriv');
    peer = await startUpstreamPeer();
  });
  afterEach(async () => {
    await live?.stop();
    live = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await db.drop();
  });

  describe('deribit', () => {
    it('refuses a rate limit in the JSON-RPC envelope (10028) under 200, 400 or 429, and stores nothing', async () => {
      const limited = recording('live/deribit/error_too_many_requests.json');
      for (const status of [200, 400, 429]) {
        peer.answer(`${API}/get_book_summary_by_currency`, { status, body: limited });
        const report = await run(deribit);
        await live!.stop();
        expect(report).toMatchObject({ state: 'rate_limited', last_error: { kind: 'rate_limited' } });
        expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
          5000,
        );
      }
      expect(await count('option_marks', 'deribit')).toBe(0);
    });

    it('calls another JSON-RPC error an error, and an answer that is not JSON-RPC malformed', async () => {
      peer.answer(`${API}/get_book_summary_by_currency`, {
        status: 400,
        body: recording('live/deribit/error_invalid_params.json'),
      });
      const invalid = await run(deribit);
      expect(invalid).toMatchObject({ state: 'failing', last_error: { kind: 'http_error' } });
      expect(invalid.last_error!.message).toMatch(/deribit refused: -32602 Invalid params/);
      await live!.stop();
      for (const body of ['{"result": []}', '{"jsonrpc":"2.0","result":{"data":[]}}', '[{']) {
        peer.answer(`${API}/get_book_summary_by_currency`, { body });
        expect(await run(deribit)).toMatchObject({ state: 'failing', last_error: { kind: 'malformed' } });
        await live!.stop();
      }
      expect(await count('option_marks', 'deribit')).toBe(0);
    });

    it('stores the chain of both underlyings, DVOL and the perpetuals; greeks come in rotation and are kept', async () => {
      await serveDeribit(peer);
      const from = peer.requests.length;
      live = createLiveIngest(testDeps(db), [deribit], settings({ everyMs: { deribit: 100 } }));
      live.start();
      await until(
        () => peer.requests.slice(from).filter((r) => r.path.endsWith('get_book_summary_by_currency')).length,
        (n) => n >= 4,
      );
      await live.stop();
      expect(live.report().deribit).toMatchObject({ state: 'ok', consecutive_failures: 0 });
      expect(await count('option_marks', 'deribit')).toBe(16);
      expect(await count('funding_rates', 'deribit')).toBe(2);
      expect(await count('mark_prices', 'deribit')).toBe(2);
      const dvol = await db.db
        .selectFrom('observations')
        .select(['key', 'value'])
        .where('metric', '=', 'dvol')
        .orderBy('key')
        .orderBy('ts')
        .execute();
      expect(dvol.map((d) => `${d.key} ${Number(d.value)}`)).toEqual([
        'BTC 55.3',
        'BTC 55.4',
        'BTC 55.5',
        'ETH 69',
        'ETH 69.1',
        'ETH 69.2',
      ]);
      // The option tickers asked: the instruments in order, 6 a poll, wrapping round.
      const asked = peer.requests
        .slice(from)
        .filter((r) => r.path === `${API}/ticker`)
        .map((r) => r.query.get('instrument_name')!)
        .filter((n) => !n.endsWith('PERPETUAL'));
      expect(asked.slice(0, 12).sort()).toEqual(OPTIONS.slice(0, 12).sort());
      expect(asked.slice(0, 6).sort()).toEqual(OPTIONS.slice(0, 6).sort());
      // Read in the first poll (BTC) and still on the newest row; read in the second (ETH); an option
      // whose ticker answers an error has none.
      expect(await greeksOf('BTC-26DEC25-90000-C')).toMatchObject({ delta: expect.any(Number) });
      const ticker = JSON.parse(recording('live/deribit/ticker_ETH-19DEC25-3000-C_2025-11-25.json')) as {
        result: { greeks: { delta: number; gamma: number; vega: number; theta: number } };
      };
      const { delta, gamma, vega, theta } = ticker.result.greeks;
      expect(await greeksOf('ETH-19DEC25-3000-C')).toEqual({ delta, gamma, vega, theta });
      expect(await greeksOf('ETH-19DEC25-2800-C')).toEqual({
        delta: null,
        gamma: null,
        vega: null,
        theta: null,
      });
    });

    it('calls empty book summaries no options, the perpetuals still stored', async () => {
      await serveDeribit(peer, { summary: rpc([]) });
      const before = await count('option_marks', 'deribit');
      expect(await run(deribit)).toMatchObject({ state: 'ok', consecutive_failures: 0 });
      expect(await count('option_marks', 'deribit')).toBe(before);
    });
  });

  describe('binance_futures', () => {
    it('stores the USDT perpetuals of the live bases from the all-symbols premiumIndex', async () => {
      peer.answer('/fapi/v1/premiumIndex', {
        body: recording('live/binance_futures/premium_index_all_2025-11-25.json'),
      });
      expect(await run(binanceFutures)).toMatchObject({ state: 'ok', last_rows: 6 });
      const marks = await db.db
        .selectFrom('mark_prices')
        .select('symbol')
        .where('source', '=', 'binance_futures')
        .orderBy('symbol')
        .execute();
      expect(marks.map((m) => m.symbol)).toEqual(['BTC-USDT', 'ETH-USDT', 'SOL-USDT']);
    });

    it.each([
      ['a 400 with its error object', 400, 'http_error'],
      ['its error object under 200', 200, 'http_error'],
    ] as const)('calls %s an error', async (_what, status, kind) => {
      peer.answer('/fapi/v1/premiumIndex', {
        status,
        body: recording('live/binance_futures/error_invalid_symbol.json'),
      });
      const report = await run(binanceFutures);
      expect(report).toMatchObject({ state: 'failing', last_error: { kind } });
    });

    it('calls [] empty and a cut body malformed', async () => {
      peer.answer('/fapi/v1/premiumIndex', { body: '[]' });
      expect(await run(binanceFutures)).toMatchObject({ state: 'empty', consecutive_failures: 0 });
      await live!.stop();
      peer.answer('/fapi/v1/premiumIndex', { body: '[{"symbol":"BTCUSDT","markPr' });
      expect(await run(binanceFutures)).toMatchObject({ last_error: { kind: 'malformed' } });
    });
  });

  describe('bybit_futures', () => {
    const path = '/v5/market/tickers';

    it('stores the USDT perpetuals of v5 linear tickers, funding with its interval', async () => {
      peer.answer(path, { body: recording('live/bybit_futures/tickers_linear_2025-11-25.json') });
      expect(await run(bybitFutures)).toMatchObject({ state: 'ok', last_rows: 7 });
      expect(peer.requests.at(-1)!.query.get('category')).toBe('linear');
      const sol = await db.db
        .selectFrom('funding_rates')
        .select(['funding_rate', 'interval_hours'])
        .where('source', '=', 'bybit_futures')
        .where('symbol', '=', 'SOL-USDT')
        .executeTakeFirstOrThrow();
      expect(sol).toEqual({ funding_rate: 0.00003, interval_hours: 4 });
    });

    it('calls retCode 10006 under 200 and a 403 rate limits (the 403 for ten minutes), another retCode an error', async () => {
      peer.answer(path, { body: recording('live/bybit_futures/error_too_many_visits.json') });
      expect(await run(bybitFutures)).toMatchObject({
        state: 'rate_limited',
        last_error: { kind: 'rate_limited' },
      });
      await live!.stop();
      peer.answer(path, { status: 403, body: '' });
      const banned = await run(bybitFutures);
      expect(banned).toMatchObject({ state: 'rate_limited', last_error: { status: 403 } });
      expect(Date.parse(banned.next_poll_at!) - Date.parse(banned.last_poll_at!)).toBeGreaterThanOrEqual(
        600_000,
      );
      await live!.stop();
      peer.answer(path, { body: recording('live/bybit_futures/error_params.json') });
      const params = await run(bybitFutures);
      expect(params).toMatchObject({ state: 'failing', last_error: { kind: 'http_error' } });
      expect(params.last_error!.message).toMatch(/bybit refused: 10001 params error/);
    });

    it('calls an empty list empty and an answer without retCode malformed', async () => {
      peer.answer(path, {
        body: JSON.stringify({
          retCode: 0,
          retMsg: 'OK',
          result: { category: 'linear', list: [] },
          retExtInfo: {},
          time: T,
        }),
      });
      expect(await run(bybitFutures)).toMatchObject({ state: 'empty' });
      await live!.stop();
      peer.answer(path, { body: '{"list":[]}' });
      expect(await run(bybitFutures)).toMatchObject({ last_error: { kind: 'malformed' } });
    });
  });

  describe('okx_futures', () => {
    const marks = OKX_MARKS;
    const funding = OKX_FUNDING;

    it('stores the marks of every USDT swap and the funding of each base, one request a base', async () => {
      await serveOkx(peer);
      const from = peer.requests.length;
      expect(await run(okx)).toMatchObject({ state: 'ok', last_rows: 6 });
      const asked = peer.requests.slice(from).filter((r) => r.path === funding);
      expect(asked).toHaveLength(19);
      expect(asked[0]!.query.get('instId')).toBe('BTC-USDT-SWAP');
      expect(peer.requests[from]!.query.get('instType')).toBe('SWAP');
      const sol = await db.db
        .selectFrom('funding_rates')
        .select(['funding_rate', 'interval_hours'])
        .where('source', '=', 'okx_futures')
        .where('symbol', '=', 'SOL-USDT')
        .executeTakeFirstOrThrow();
      expect(sol).toEqual({ funding_rate: -0.0000105, interval_hours: 4 });
    });

    it.each([200, 429])(
      'calls code 50011 under %i a rate limit, and stores nothing of the poll',
      async (status) => {
        await serveOkx(peer);
        peer.answer(`${funding}?instId=ETH-USDT-SWAP`, {
          status,
          body: recording('live/okx_futures/error_too_many_requests.json'),
        });
        // The marks were read before the funding request that hit the limit: none of them is stored.
        await db.db.deleteFrom('mark_prices').where('source', '=', 'okx_futures').execute();
        expect(await run(okx)).toMatchObject({ state: 'rate_limited', last_error: { kind: 'rate_limited' } });
        expect(await count('mark_prices', 'okx_futures')).toBe(0);
      },
    );

    it('calls another code an error, an empty list empty, and a body without code malformed', async () => {
      peer.answer(marks, {
        status: 400,
        body: '{"code":"51000","msg":"Parameter instType error","data":[]}',
      });
      const bad = await run(okx);
      expect(bad).toMatchObject({ state: 'failing', last_error: { kind: 'http_error', status: 400 } });
      expect(bad.last_error!.message).toMatch(/OKX code 51000/);
      await live!.stop();
      peer.answer(marks, { body: '{"code":"0","msg":"","data":[]}' });
      for (const path of [funding, ...['BTC', 'ETH', 'SOL'].map((b) => `${funding}?instId=${b}-USDT-SWAP`)])
        peer.answer(path, { body: '{"code":"0","msg":"","data":[]}' });
      expect(await run(okx)).toMatchObject({ state: 'empty', consecutive_failures: 0 });
      await live!.stop();
      peer.answer(marks, { body: '{"data":[]}' });
      expect(await run(okx)).toMatchObject({ last_error: { kind: 'malformed' } });
    });
  });
});
