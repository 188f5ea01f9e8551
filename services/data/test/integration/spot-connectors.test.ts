import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { readFile } from 'node:fs/promises';
import { createMetrics } from '@meridian/observability';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { BINANCE } from '../../src/adapters/connectors/binance-spot.js';
import { BITSTAMP } from '../../src/adapters/connectors/bitstamp-spot.js';
import { BYBIT } from '../../src/adapters/connectors/bybit-spot.js';
import { COINBASE } from '../../src/adapters/connectors/coinbase-spot.js';
import { KRAKEN } from '../../src/adapters/connectors/kraken-spot.js';
import { OKX } from '../../src/adapters/connectors/okx-spot.js';
import { spotConnector, type SpotVenue } from '../../src/adapters/connectors/spot-venue.js';
import { createLiveIngest, type LiveIngest, type ConnectorReport } from '../../src/jobs/live-ingest.js';
import { testDeps } from '../support/app.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

const recording = (file: string) => readFile(new URL(`../../recordings/${file}`, import.meta.url), 'utf8');

/** The second the samples' trades start (2026-11-20T12:02:00Z); the candles start two minutes before. */
const T0 = Date.parse('2026-11-20T12:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

interface VenueCase {
  spec: SpotVenue;
  /** Our market the recorded sample is of. */
  symbol: string;
  /** Path (with the query that picks the sample's market) -> recorded file. */
  samples: [string, string][];
  /** What the venue answers for a market without trades or candles, per path of every market. */
  empty: (venueSymbol: string) => [string, string][];
  /** The request that the error and rate-limit answers replace. */
  failing: string;
  /** The venue's own error answer: HTTP status and recorded file, and how it is reported. */
  error: { status: number; file: string; status_reported?: number; message?: RegExp };
  /** A rate-limit refusal in the body of an HTTP 200 answer, where the venue has one. */
  bodyRateLimit?: string;
  /** The first stored 1m candle: open, high, low, close, volume. */
  candle: [number, number, number, number, number];
  /** The stored trades, oldest first: id and taker side. */
  trades: [string, 'buy' | 'sell'][];
  /** The 1s bars: the venue's own, or built from the trades. */
  seconds: 'native' | 'built';
  /** The venue symbol a request asked for, from its path and query. */
  asked: (r: { path: string; query: URLSearchParams }) => string | null;
}

const SIDES_BT: ('buy' | 'sell')[] = ['buy', 'sell', 'buy', 'buy', 'sell', 'buy'];
const ids = (first: number, sides = SIDES_BT) =>
  sides.map((s, i) => [String(first + i), s] as [string, 'buy' | 'sell']);

const CASES: VenueCase[] = [
  {
    spec: BINANCE,
    symbol: 'BTC-USDT',
    samples: [
      ['/api/v3/klines?symbol=BTCUSDT&interval=1m', 'binance_spot/klines_1m_BTCUSDT.json'],
      ['/api/v3/klines?symbol=BTCUSDT&interval=1s', 'binance_spot/klines_1s_BTCUSDT.json'],
      ['/api/v3/aggTrades?symbol=BTCUSDT', 'binance_spot/aggTrades_BTCUSDT.json'],
    ],
    empty: () => [
      ['/api/v3/klines', '[]'],
      ['/api/v3/aggTrades', '[]'],
    ],
    failing: '/api/v3/klines',
    error: { status: 400, file: 'binance_spot/error_invalid_symbol.json' },
    candle: [91000, 91050.5, 90980.1, 91020.3, 12.5],
    trades: ids(3105000000),
    seconds: 'native',
    asked: (r) => r.query.get('symbol'),
  },
  {
    spec: COINBASE,
    symbol: 'BTC-USD',
    samples: [
      ['/products/BTC-USD/candles', 'coinbase_spot/candles_BTC-USD.json'],
      ['/products/BTC-USD/trades', 'coinbase_spot/trades_BTC-USD.json'],
    ],
    empty: (p) => [
      [`/products/${p}/candles`, '[]'],
      [`/products/${p}/trades`, '[]'],
    ],
    failing: '/products/BTC-USD/candles',
    error: { status: 404, file: 'coinbase_spot/error_not_found.json' },
    candle: [91000, 91050.5, 90980.1, 91020.3, 12.5],
    // The recording holds the maker's side: stored inverted, as the taker's.
    trades: ids(712000100),
    seconds: 'built',
    asked: (r) => /^\/products\/([^/]+)\//.exec(r.path)?.[1] ?? null,
  },
  {
    spec: KRAKEN,
    symbol: 'BTC-USD',
    samples: [
      ['/0/public/OHLC?pair=XXBTZUSD', 'kraken_spot/ohlc_XXBTZUSD.json'],
      ['/0/public/Trades?pair=XXBTZUSD', 'kraken_spot/trades_XXBTZUSD.json'],
    ],
    empty: () => [
      ['/0/public/OHLC', '{"error":[],"result":{"PAIR":[],"last":1795176000}}'],
      ['/0/public/Trades', '{"error":[],"result":{"PAIR":[],"last":"1795176000000000000"}}'],
    ],
    failing: '/0/public/OHLC',
    error: { status: 200, file: 'kraken_spot/error_unknown_pair.json', message: /EQuery:Unknown asset pair/ },
    bodyRateLimit: 'kraken_spot/error_rate_limit.json',
    candle: [91000, 91050.5, 90980.1, 91020.3, 12.5],
    trades: ids(81500000),
    seconds: 'built',
    asked: (r) => r.query.get('pair'),
  },
  {
    spec: OKX,
    symbol: 'BTC-USDT',
    samples: [
      ['/api/v5/market/candles?instId=BTC-USDT', 'okx_spot/candles_BTC-USDT.json'],
      ['/api/v5/market/trades?instId=BTC-USDT', 'okx_spot/trades_BTC-USDT.json'],
    ],
    empty: () => [
      ['/api/v5/market/candles', '{"code":"0","msg":"","data":[]}'],
      ['/api/v5/market/trades', '{"code":"0","msg":"","data":[]}'],
    ],
    failing: '/api/v5/market/candles',
    error: { status: 200, file: 'okx_spot/error_51001.json', message: /51001 Instrument ID does not exist/ },
    bodyRateLimit: 'okx_spot/error_50011.json',
    candle: [91010, 91060.2, 90990, 91030.1, 3.5],
    trades: ids(731000000),
    seconds: 'built',
    asked: (r) => r.query.get('instId'),
  },
  {
    spec: BYBIT,
    symbol: 'BTC-USDT',
    samples: [
      ['/v5/market/kline?symbol=BTCUSDT', 'bybit_spot/kline_BTCUSDT.json'],
      ['/v5/market/recent-trade?symbol=BTCUSDT', 'bybit_spot/recent_trade_BTCUSDT.json'],
    ],
    empty: () => [
      [
        '/v5/market/kline',
        '{"retCode":0,"retMsg":"OK","result":{"category":"spot","symbol":"X","list":[]},"retExtInfo":{},"time":1}',
      ],
      [
        '/v5/market/recent-trade',
        '{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[]},"retExtInfo":{},"time":1}',
      ],
    ],
    failing: '/v5/market/kline',
    error: { status: 200, file: 'bybit_spot/error_10001.json', message: /10001 Not supported symbols/ },
    bodyRateLimit: 'bybit_spot/error_10006.json',
    candle: [91010, 91060.2, 90990, 91030.1, 3.5],
    trades: [
      ['2290000000047000000', 'buy'],
      ['2290000000047000001', 'sell'],
      ['2290000000047000002', 'buy'],
      ['2290000000047000003', 'buy'],
      ['2290000000047000004', 'sell'],
      ['2290000000047000005', 'buy'],
    ],
    seconds: 'built',
    asked: (r) => r.query.get('symbol'),
  },
  {
    spec: BITSTAMP,
    symbol: 'BTC-USD',
    samples: [
      ['/api/v2/ohlc/btcusd/', 'bitstamp_spot/ohlc_btcusd.json'],
      ['/api/v2/transactions/btcusd/', 'bitstamp_spot/transactions_btcusd.json'],
    ],
    empty: (p) => [
      [`/api/v2/ohlc/${p}/`, '{"data":{"pair":"X/Y","ohlc":[]}}'],
      [`/api/v2/transactions/${p}/`, '[]'],
    ],
    failing: '/api/v2/ohlc/btcusd/',
    error: { status: 404, file: 'bitstamp_spot/error_bad_pair.json' },
    candle: [91000, 91050, 90980, 91020, 1.25],
    trades: ids(412000000),
    seconds: 'built',
    asked: (r) => /^\/api\/v2\/(?:ohlc|transactions)\/([^/]+)\//.exec(r.path)?.[1] ?? null,
  },
];

describe.each(CASES)('spot connector $spec.name on its recorded answers', (c) => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  const name = c.spec.name;
  const source = c.spec.venue;

  /** Every market answered empty, then the samples of the recorded market. */
  const answerAll = async () => {
    for (const venueSymbol of Object.values(c.spec.markets))
      for (const [path, body] of c.empty(venueSymbol)) peer.answer(path, { body });
    for (const [path, file] of c.samples) peer.answer(path, { body: await recording(file) });
  };
  /** One first poll of the real connector (unpaced: the peer is on loopback) through the runner. */
  const poll = async (everyMs = 60_000): Promise<ConnectorReport> => {
    const deps = testDeps(db, { INGEST_MODE: 'live' });
    live = createLiveIngest(
      // Its own registry: the deps' own live ingest (INGEST_MODE=live) registered the metrics already.
      { ...deps, metrics: createMetrics('data', { defaultMetrics: false }) },
      [spotConnector(c.spec, { gapMs: 0 })],
      {
        urls: { [name]: peer.url },
        everyMs: { [name]: everyMs },
        only: [],
        keys: {},
        timeoutMs: 1000,
        maxBackoffMs: 60_000,
      },
    );
    live.start();
    await live.firstPolls();
    return live.report()[name]!;
  };
  const count = async (table: 'candles_1m' | 'candles_1s' | 'trades') =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from ${sql.table(`data.${table}`)} where source = ${source}`.execute(
          db.db,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    db = await migratedDatabase(`data_spot_${source}`);
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

  it('answers nothing at first: an empty answer is empty, not a failure', async () => {
    for (const venueSymbol of Object.values(c.spec.markets))
      for (const [path, body] of c.empty(venueSymbol)) peer.answer(path, { body });
    expect(await poll()).toMatchObject({ state: 'empty', consecutive_failures: 0, last_rows: 0 });
    expect(await count('candles_1m')).toBe(0);
  });

  it("refuses in the venue's own error format, and writes nothing", async () => {
    await answerAll();
    peer.answer(c.failing, { status: c.error.status, body: await recording(c.error.file) });
    const report = await poll();
    expect(report).toMatchObject({
      state: 'failing',
      last_error: {
        kind: 'http_error',
        ...(c.error.status === 200 ? {} : { status: c.error.status }),
      },
    });
    if (c.error.message) expect(report.last_error!.message).toMatch(c.error.message);
    expect(await count('candles_1m')).toBe(0);
    expect(await count('trades')).toBe(0);
  });

  it('waits as a 429 asks', async () => {
    await answerAll();
    peer.answer(c.failing, { status: 429, body: '{}', headers: { 'retry-after': '20' } });
    const report = await poll();
    expect(report).toMatchObject({
      state: 'rate_limited',
      last_error: { kind: 'rate_limited', status: 429 },
    });
    expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
      20_000,
    );
  });

  if (c.bodyRateLimit) {
    const file = c.bodyRateLimit;
    it('calls a rate-limit refusal in the body of a 200 rate_limited', async () => {
      await answerAll();
      peer.answer(c.failing, { body: await recording(file) });
      expect(await poll()).toMatchObject({ state: 'rate_limited', last_error: { kind: 'rate_limited' } });
    });
  }

  it('stores the recorded candles, taker-side trades and 1s bars, asking for every market by its venue symbol', async () => {
    await answerAll();
    const before = peer.requests.length;
    const report = await poll();
    expect(report).toMatchObject({ state: 'ok', consecutive_failures: 0 });
    const candles = await sql<{
      symbol: string;
      ts: Date;
      open: string;
      high: string;
      low: string;
      close: string;
      volume: string;
    }>`
      select symbol, ts, open, high, low, close, volume from data.candles_1m where source = ${source} order by ts`.execute(
      db.db,
    );
    expect(candles.rows.map((r) => r.symbol)).toEqual([c.symbol, c.symbol, c.symbol]);
    expect(candles.rows.map((r) => r.ts.toISOString())).toEqual([at(0), at(60_000), at(120_000)]);
    expect(
      [
        candles.rows[0]!.open,
        candles.rows[0]!.high,
        candles.rows[0]!.low,
        candles.rows[0]!.close,
        candles.rows[0]!.volume,
      ].map(Number),
    ).toEqual(c.candle);

    const trades = await sql<{ symbol: string; trade_id: string; taker_side: string }>`
      select symbol, trade_id, taker_side from data.trades where source = ${source} order by ts, trade_id`.execute(
      db.db,
    );
    expect(trades.rows.map((t) => [t.trade_id, t.taker_side])).toEqual(c.trades);
    expect(new Set(trades.rows.map((t) => t.symbol))).toEqual(new Set([c.symbol]));

    const seconds = await sql<{ ts: Date; trade_count: number | null; volume: string }>`
      select ts, trade_count, volume from data.candles_1s where source = ${source} order by ts`.execute(
      db.db,
    );
    // Built: the first poll's oldest second may be partial (trades before it unseen) and its newest still
    // filling, so only 12:02:01 (two trades) and 12:02:02 (one) are bars. Native: Binance's own two.
    expect(seconds.rows.map((r) => r.ts.toISOString())).toEqual(
      c.seconds === 'native' ? [at(120_000), at(121_000)] : [at(121_000), at(122_000)],
    );
    if (c.seconds === 'built') expect(seconds.rows.map((r) => r.trade_count)).toEqual([2, 1]);

    const asked = new Set(peer.requests.slice(before).map(c.asked));
    expect(asked).toEqual(new Set(Object.values(c.spec.markets)));
  });
});

describe('spot connectors keep their trade cursors between polls', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  beforeAll(async () => {
    db = await migratedDatabase('data_spot_cursors');
    peer = await startUpstreamPeer();
  });
  afterAll(async () => {
    await live?.stop();
    await peer.close();
    await db.drop();
  });

  it.each([
    [
      'binance_spot',
      BINANCE,
      '/api/v3/aggTrades',
      'binance_spot/aggTrades_BTCUSDT.json',
      'symbol',
      'BTCUSDT',
      'fromId',
      '3105000005',
    ],
    [
      'kraken_spot',
      KRAKEN,
      '/0/public/Trades',
      'kraken_spot/trades_XXBTZUSD.json',
      'pair',
      'XXBTZUSD',
      'since',
      '1795176123050000000',
    ],
  ] as [string, SpotVenue, string, string, string, string, string, string][])(
    '%s asks the next poll from where the last ended',
    async (_name, spec, path, file, key, symbol, cursor, value) => {
      peer.answer(path, { body: await recording(file) });
      if (spec === BINANCE) peer.answer('/api/v3/klines', { body: '[]' });
      else peer.answer('/0/public/OHLC', { body: '{"error":[],"result":{"XXBTZUSD":[],"last":0}}' });
      const deps = testDeps(db, { INGEST_MODE: 'live' });
      live = createLiveIngest(
        { ...deps, metrics: createMetrics('data', { defaultMetrics: false }) },
        [spotConnector(spec, { gapMs: 0 })],
        {
          urls: { [spec.name]: peer.url },
          everyMs: { [spec.name]: 20 },
          only: [],
          keys: {},
          timeoutMs: 1000,
          maxBackoffMs: 1000,
        },
      );
      live.start();
      const end = Date.now() + 8000;
      const later = () =>
        peer.requests.filter((r) => r.path === path && r.query.get(key) === symbol && r.query.has(cursor));
      while (later().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      await live.stop();
      live = undefined;
      expect(later()[0]!.query.get(cursor)).toBe(value);
    },
  );
});
