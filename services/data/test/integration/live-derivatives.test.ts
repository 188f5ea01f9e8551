import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { readFile } from 'node:fs/promises';
import { catalogFor, findMetric, LIVE_DERIVATIVES, type CatalogHit } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { binanceFutures } from '../../src/adapters/connectors/binance-futures.js';
import { bybitFutures } from '../../src/adapters/connectors/bybit-futures.js';
import type { ConnectorDefinition } from '../../src/adapters/connectors/connector.js';
import { deribitConnector } from '../../src/adapters/connectors/deribit.js';
import { okxFuturesConnector } from '../../src/adapters/connectors/okx-futures.js';
import { ingest } from '../../src/flows/ingest.js';
import { resolverFor } from '../../src/flows/resolve/index.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { liveSettings, until } from '../support/live.js';

/** The hand-written samples' poll instant (recordings/live/README.md): 2025-11-25 08:00 UTC. */
const T = Date.UTC(2025, 10, 25, 8);
const API = '/api/v2/public';
const sample = (file: string) => readFile(new URL(`../../recordings/live/${file}`, import.meta.url), 'utf8');
/** A sample moved to another instant: every epoch-ms time of the sample (T + up to 10 s) shifted alike. */
const movedTo = (text: string, at: number) =>
  text.replace(/\b17640576\d{5}\b/g, (t) => String(Number(t) - T + at));
const rpc = (result: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', result, usIn: 1, usOut: 2, usDiff: 1, testnet: false });

/** Deribit in tests: 6 option tickers a poll, unpaced, so that a rotation shows in two polls. */
const deribit = deribitConnector({ tickersPerPoll: 6, tickerConcurrency: 2, tickerSpacingMs: 0 });
/** OKX in tests: its 19 funding requests unpaced. */
const okx = okxFuturesConnector({ spacingMs: 0 });
/** Every option of the two samples (16), in the order the rotation reads them. */
const OPTIONS = [
  ...['85000', '90000'].flatMap((k) => [`BTC-26DEC25-${k}-C`, `BTC-26DEC25-${k}-P`]),
  ...['19DEC25', '30JAN26'].flatMap((d) =>
    ['2800', '3000', '3200'].flatMap((k) => [`ETH-${d}-${k}-C`, `ETH-${d}-${k}-P`]),
  ),
];

/** What the catalogue's mode mechanism lists in live mode: the product's LIVE_DERIVATIVES entry. */
function liveHit(category: string, product: 'futures' | 'options', metric: string): CatalogHit {
  const hit = findMetric(category, product, metric)!;
  return { ...hit, product: { ...hit.product, ...LIVE_DERIVATIVES[product] } };
}

describe('live derivatives connectors against upstreams on loopback', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  const settings = (over: Partial<LiveIngestSettings> = {}) =>
    liveSettings({
      urls: { deribit: peer.url, binance_futures: peer.url, bybit_futures: peer.url, okx_futures: peer.url },
      timeoutMs: 1000,
      ...over,
    });
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
  /** Serves the Deribit samples, each of the 16 option tickers but 4 answering Deribit's invalid-params error. */
  const serveDeribit = async (over: { summary?: string } = {}) => {
    for (const u of ['BTC', 'ETH']) {
      peer.answer(`${API}/get_book_summary_by_currency?currency=${u}&kind=option`, {
        body: over.summary ?? (await sample(`deribit/book_summary_${u}_option_2025-11-25.json`)),
      });
      peer.answer(`${API}/get_volatility_index_data?currency=${u}`, {
        body: await sample(`deribit/volatility_index_${u}_2025-11-25.json`),
      });
      peer.answer(`${API}/ticker?instrument_name=${u}-PERPETUAL`, {
        body: await sample(`deribit/ticker_${u}-PERPETUAL_2025-11-25.json`),
      });
    }
    peer.answer(`${API}/ticker`, { status: 400, body: await sample('deribit/error_invalid_params.json') });
    for (const name of [
      'ETH-19DEC25-3000-C',
      'ETH-19DEC25-3000-P',
      'ETH-30JAN26-3200-C',
      'BTC-26DEC25-90000-C',
    ])
      peer.answer(`${API}/ticker?instrument_name=${name}`, {
        body: await sample(`deribit/ticker_${name}_2025-11-25.json`),
      });
  };
  const OKX_MARKS = '/api/v5/public/mark-price';
  const OKX_FUNDING = '/api/v5/public/funding-rate';
  /** The samples: marks of every swap, funding of BTC, ETH and SOL; the other bases answer 51001. */
  const serveOkx = async () => {
    peer.answer(OKX_MARKS, { body: await sample('okx_futures/mark_price_swap_2025-11-25.json') });
    peer.answer(OKX_FUNDING, { body: await sample('okx_futures/error_no_such_instrument.json') });
    for (const base of ['BTC', 'ETH', 'SOL'])
      peer.answer(`${OKX_FUNDING}?instId=${base}-USDT-SWAP`, {
        body: await sample(`okx_futures/funding_rate_${base}-USDT-SWAP_2025-11-25.json`),
      });
  };

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
      const limited = await sample('deribit/error_too_many_requests.json');
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
        body: await sample('deribit/error_invalid_params.json'),
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
      await serveDeribit();
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
      const ticker = JSON.parse(await sample('deribit/ticker_ETH-19DEC25-3000-C_2025-11-25.json')) as {
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
      await serveDeribit({ summary: rpc([]) });
      const before = await count('option_marks', 'deribit');
      expect(await run(deribit)).toMatchObject({ state: 'ok', consecutive_failures: 0 });
      expect(await count('option_marks', 'deribit')).toBe(before);
    });
  });

  describe('binance_futures', () => {
    it('stores the USDT perpetuals of the live bases from the all-symbols premiumIndex', async () => {
      peer.answer('/fapi/v1/premiumIndex', {
        body: await sample('binance_futures/premium_index_all_2025-11-25.json'),
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
        body: await sample('binance_futures/error_invalid_symbol.json'),
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
      peer.answer(path, { body: await sample('bybit_futures/tickers_linear_2025-11-25.json') });
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
      peer.answer(path, { body: await sample('bybit_futures/error_too_many_visits.json') });
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
      peer.answer(path, { body: await sample('bybit_futures/error_params.json') });
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
      await serveOkx();
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
        await serveOkx();
        peer.answer(`${funding}?instId=ETH-USDT-SWAP`, {
          status,
          body: await sample('okx_futures/error_too_many_requests.json'),
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

  describe('answers', () => {
    it('ETH in live mode: funding, mark_price, the options chain with greeks and DVOL; basis says spot is missing', async () => {
      await serveDeribit();
      peer.answer('/fapi/v1/premiumIndex', {
        body: await sample('binance_futures/premium_index_all_2025-11-25.json'),
      });
      peer.answer('/v5/market/tickers', {
        body: await sample('bybit_futures/tickers_linear_2025-11-25.json'),
      });
      await serveOkx();
      // The catalogue's live entries come from the mode mechanism (liveHit); the resolvers do not read the mode.
      const deps = testDeps(db);
      live = createLiveIngest(
        deps,
        [
          deribitConnector({ tickersPerPoll: 16, tickerConcurrency: 4, tickerSpacingMs: 0 }),
          binanceFutures,
          bybitFutures,
          okx,
        ],
        settings(),
      );
      live.start();
      await live.firstPolls();
      const now = new Date(T + 10_000);
      const answer = async (product: 'futures' | 'options', metric: string, entity: string) => {
        const result = await resolverFor(`crypto/${product}/${metric}`)!(
          deps,
          { category: 'crypto', product, metric, entity, series: false, now },
          liveHit('crypto', product, metric),
        );
        return result;
      };
      const funding = await answer('futures', 'funding', 'ETH-USD');
      if (!funding.ok) throw new Error(funding.detail);
      const fundingData = funding.value.data as { funding_rate: number; venues: { venue: string }[] };
      expect(fundingData.venues.map((v) => v.venue).sort()).toEqual([
        'binance_futures',
        'bybit_futures',
        'deribit',
        'okx_futures',
      ]);
      // The median of Deribit 0.0000421, Bybit 0.00005, OKX 0.0000612 and Binance 0.00007531.
      expect(fundingData.funding_rate).toBeCloseTo((0.00005 + 0.0000612) / 2, 10);

      const mark = await answer('futures', 'mark_price', 'ETH-USD');
      if (!mark.ok) throw new Error(mark.detail);
      // No ETH spot is stored (another connector's), so the USDT perps cannot be converted: said so.
      expect(mark.value.data).toMatchObject({ mark_price: 2998.35, venues: [{ venue: 'deribit' }] });
      expect(mark.value.excluded).toContainEqual({
        venue: 'bybit_futures',
        reason: expect.stringContaining('no measured USD rate for USDT'),
      });
      const basis = await answer('futures', 'basis', 'ETH-USD');
      expect(basis).toMatchObject({
        ok: false,
        code: 'not_found',
        detail: expect.stringContaining('no spot reference_price for ETH-USD'),
      });
      const sol = await answer('futures', 'funding', 'SOL-USD');
      expect(sol.ok && (sol.value.data as { funding_rate: number }).funding_rate).toBeCloseTo(-0.000021, 10); // the median of Binance's 8-hourly -0.00002144, OKX's 4-hourly -0.0000105 and Bybit's 4-hourly 0.00003, over 8 h

      const chain = await answer('options', 'chain', 'ETH');
      if (!chain.ok) throw new Error(chain.detail);
      const rows = (chain.value.data as { options: { instrument: string; delta: number | null }[] }).options;
      expect(rows).toHaveLength(12);
      expect(rows.find((o) => o.instrument === 'ETH-19DEC25-3000-C')!.delta).toEqual(expect.any(Number));
      expect(rows.find((o) => o.instrument === 'ETH-19DEC25-2800-C')!.delta).toBeNull();
      const index = await answer('options', 'implied_vol_index', 'ETH');
      if (!index.ok) throw new Error(index.detail);
      expect(index.value.data).toMatchObject({
        value: expect.any(Number),
        deribit_dvol: { value: 69.2, ts: new Date(T).toISOString(), unit: 'percent' },
      });
      expect(index.value.method).toMatch(/DVOL/);
    });

    /** The three venues' perpetual samples, moved to `at`, and one minute of BTC spot in USD and USDT. */
    async function answerBtcVenues(at: number): Promise<void> {
      for (const u of ['BTC', 'ETH']) {
        peer.answer(`${API}/get_book_summary_by_currency?currency=${u}&kind=option`, { body: rpc([]) });
        peer.answer(`${API}/get_volatility_index_data?currency=${u}`, {
          body: rpc({ data: [], continuation: null }),
        });
        peer.answer(`${API}/ticker?instrument_name=${u}-PERPETUAL`, {
          body: movedTo(await sample(`deribit/ticker_${u}-PERPETUAL_2025-11-25.json`), at),
        });
      }
      peer.answer('/fapi/v1/premiumIndex', {
        body: movedTo(await sample('binance_futures/premium_index_all_2025-11-25.json'), at),
      });
      peer.answer('/v5/market/tickers', {
        body: movedTo(await sample('bybit_futures/tickers_linear_2025-11-25.json'), at),
      });
      // Spot is another connector's: one Binance.US minute of BTC in USD and USDT gives the USDT rate.
      const minute = new Date(Math.floor(at / 60_000) * 60_000 - 60_000).toISOString();
      for (const [symbol, close] of [
        ['BTC-USD', 87380],
        ['BTC-USDT', 87410],
      ] as const)
        await ingest(
          db.db,
          {
            kind: 'candles',
            source: 'binanceus',
            symbol,
            interval: '1m',
            rows: [{ ts: minute, open: close, high: close, low: close, close, volume: 10, trade_count: 5 }],
          },
          catalogFor('live'),
        );
    }

    it('BTC through the data app in live mode: funding, mark_price and basis over three venues', async () => {
      // The samples' times (up to 3 s after their poll instant) moved into the last minute, none in the future.
      const at = Date.now() - 15_000;
      await answerBtcVenues(at);
      // The service's own composition in live mode (dataDeps), pointed at the upstream peer.
      const deps = testDeps(db, {
        INGEST_MODE: 'live',
        INGEST_CONNECTORS: 'deribit,binance_futures,bybit_futures',
        INGEST_URL_DERIBIT: peer.url,
        INGEST_URL_BINANCE_FUTURES: peer.url,
        INGEST_URL_BYBIT_FUTURES: peer.url,
      });
      live = deps.live!;
      live.start();
      await live.firstPolls();
      deps.firstLoad.settle(); // as main.ts does after the first polls
      const app = testApp(deps);
      const headers = await callerHeaders({
        plan: 'ultra',
        auth: 'api_key',
        account_id: 'acct_ld',
        key_id: 'key_ld',
      });
      const get = async (metric: string) => {
        const res = await request(app).get(`/v1/data/crypto/futures/${metric}?entity=BTC-USD`).set(headers);
        expect(res.status).toBe(200);
        return res.body as { data: Record<string, unknown> & { venues: { venue: string }[] } };
      };
      const funding = await get('funding');
      expect(funding.data.funding_rate).toBeCloseTo(0.0001, 10);
      const mark = await get('mark_price');
      expect(mark.data.venues.map((v) => v.venue).sort()).toEqual([
        'binance_futures',
        'bybit_futures',
        'deribit',
      ]);
      const basis = await get('basis');
      expect(basis.data.reference_price).toBeCloseTo(87380, 0);
      expect(typeof basis.data.basis).toBe('number');
      // The live catalogue (catalogFor('live')) lists ETH: its perp, its chain and the catalogue agree.
      const eth = await request(app).get('/v1/data/crypto/futures/funding?entity=ETH-USD').set(headers);
      expect(eth.status).toBe(200);
      expect(eth.body.meta.venues).toEqual(expect.arrayContaining(['deribit']));
      const chain = await request(app)
        .get('/v1/data/crypto/options/chain?entity=ETH&option_type=call')
        .set(headers);
      // This poll's book summary is empty: ETH is a listed underlying with no chain yet (404), not a
      // refused entity (400, as under replay).
      expect([chain.status, chain.body.detail]).toEqual([
        404,
        expect.stringMatching(/no stored data for ETH options/),
      ]);
      const catalog = await request(app).get('/v1/catalog').set(headers);
      const crypto = (
        catalog.body.data.categories as {
          category: string;
          products: { product: string; entities: string[] }[];
        }[]
      ).find((c) => c.category === 'crypto')!;
      expect(crypto.products.find((p) => p.product === 'futures')!.entities).toHaveLength(19);
      expect(crypto.products.find((p) => p.product === 'options')!.entities).toEqual(['BTC', 'ETH']);
      const ready = await request(app).get('/ready');
      expect(Object.keys(ready.body.details.connectors).sort()).toEqual([
        'binance_futures',
        'bybit_futures',
        'deribit',
      ]);
    });
  });
});
