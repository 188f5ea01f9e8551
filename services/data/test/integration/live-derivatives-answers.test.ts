import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { catalogFor } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { binanceFutures } from '../../src/adapters/connectors/derivatives/binance-futures.js';
import { bybitFutures } from '../../src/adapters/connectors/derivatives/bybit-futures.js';
import { deribitConnector } from '../../src/adapters/connectors/derivatives/deribit.js';
import { ingest } from '../../src/flows/ingest.js';
import { resolverFor } from '../../src/flows/resolve/index.js';
import { createLiveIngest, type LiveIngest, type LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import {
  API,
  derivativesSettings,
  liveHit,
  movedTo,
  okx,
  rpc,
  serveDeribit,
  serveOkx,
  T,
} from '../support/live-derivatives.js';
import { recording } from '../support/recordings.js';

/**
 * What the live derivatives connectors' rows answer in live mode, polled from their upstreams'
 * samples on a loopback peer: funding, mark price and basis over the venues, the options chain with
 * greeks and DVOL, through the resolvers and through the data app. How each connector polls:
 * live-derivatives.test.ts.
 */
describe('live derivatives answers from upstreams on loopback', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  const settings = (over: Partial<LiveIngestSettings> = {}) => derivativesSettings(peer, over);

  beforeAll(async () => {
    db = await migratedDatabase('data_live_deriv_answers');
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

  it('ETH in live mode: funding, mark_price, the options chain with greeks and DVOL; basis says spot is missing', async () => {
    await serveDeribit(peer);
    peer.answer('/fapi/v1/premiumIndex', {
      body: recording('live/binance_futures/premium_index_all_2025-11-25.json'),
    });
    peer.answer('/v5/market/tickers', {
      body: recording('live/bybit_futures/tickers_linear_2025-11-25.json'),
    });
    await serveOkx(peer);
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
        body: movedTo(recording(`live/deribit/ticker_${u}-PERPETUAL_2025-11-25.json`), at),
      });
    }
    peer.answer('/fapi/v1/premiumIndex', {
      body: movedTo(recording('live/binance_futures/premium_index_all_2025-11-25.json'), at),
    });
    peer.answer('/v5/market/tickers', {
      body: movedTo(recording('live/bybit_futures/tickers_linear_2025-11-25.json'), at),
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
