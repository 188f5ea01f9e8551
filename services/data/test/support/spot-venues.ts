import { BINANCE } from '../../src/adapters/connectors/spot/binance-spot.js';
import { BITSTAMP } from '../../src/adapters/connectors/spot/bitstamp-spot.js';
import { BYBIT } from '../../src/adapters/connectors/spot/bybit-spot.js';
import { COINBASE } from '../../src/adapters/connectors/spot/coinbase-spot.js';
import { KRAKEN } from '../../src/adapters/connectors/spot/kraken-spot.js';
import { OKX } from '../../src/adapters/connectors/spot/okx-spot.js';
import type { SpotVenue } from '../../src/adapters/connectors/spot/spot-venue.js';

/**
 * The spot venues as spot-connectors.test.ts plays them: per venue, the recorded samples of one
 * market, the venue's empty, error and rate-limit answers, and what the samples store.
 */

/** The second the samples' trades start (2026-11-20T12:02:00Z); the candles start two minutes before. */
const T0 = Date.parse('2026-11-20T12:00:00Z');
export const at = (ms: number) => new Date(T0 + ms).toISOString();

export interface VenueCase {
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

export const CASES: VenueCase[] = [
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
