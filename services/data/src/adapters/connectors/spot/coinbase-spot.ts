import type { CandleRow, TradeRow } from '@meridian/contracts';
import {
  arrayOf,
  isoOfMs,
  num,
  objectOf,
  oldestFirst,
  realTrades,
  spotConnector,
  type SpotVenue,
} from './spot-venue.js';

/**
 * Coinbase Exchange (api.exchange.coinbase.com, public market data, no key). Product ids are already
 * BASE-QUOTE; Coinbase folded its USDC books into USD, so it lists no BTC-USDC. Candles
 * `[time (s), low, high, open, close, volume]`, newest first, at most 300. Trades
 * `{time, trade_id, price, size, side}`, newest first, where `side` is the MAKER's side: a trade
 * whose maker sold was a taker's buy, so it is inverted. An error is HTTP 4xx with `{"message": ...}`.
 */
export const COINBASE_MARKETS: Readonly<Record<string, string>> = {
  'BTC-USD': 'BTC-USD',
  'BTC-USDT': 'BTC-USDT',
  'ETH-USD': 'ETH-USD',
  'ETH-USDT': 'ETH-USDT',
  'SOL-USD': 'SOL-USD',
  'SOL-USDT': 'SOL-USDT',
  'XRP-USD': 'XRP-USD',
  'XRP-USDT': 'XRP-USDT',
  'DOGE-USD': 'DOGE-USD',
  'DOGE-USDT': 'DOGE-USDT',
  'ADA-USD': 'ADA-USD',
  'ADA-USDT': 'ADA-USDT',
  'AVAX-USD': 'AVAX-USD',
  'LINK-USD': 'LINK-USD',
  'LTC-USD': 'LTC-USD',
  'DOT-USD': 'DOT-USD',
  'USDT-USD': 'USDT-USD',
};

const TRADES_LIMIT = 1000;

export function parseCoinbaseCandles(body: unknown): CandleRow[] {
  return oldestFirst(
    arrayOf(body, 'candles').map((c, i) => {
      const [time, low, high, open, close, volume] = arrayOf(c, `candle ${i}`);
      return {
        ts: isoOfMs(num(time, 'candle time') * 1000),
        open: num(open, 'open'),
        high: num(high, 'high'),
        low: num(low, 'low'),
        close: num(close, 'close'),
        volume: num(volume, 'volume'),
      };
    }),
  );
}

export function parseCoinbaseTrades(body: unknown): TradeRow[] {
  return realTrades(
    arrayOf(body, 'trades').map((t, i) => {
      const o = objectOf(t, `trade ${i}`);
      const ts = typeof o.time === 'string' ? Date.parse(o.time) : NaN;
      if (Number.isNaN(ts)) throw new Error(`trade ${i}: time is not a date`);
      if (o.side !== 'buy' && o.side !== 'sell') throw new Error(`trade ${i}: side is ${String(o.side)}`);
      return {
        trade_id: String(num(o.trade_id, 'trade_id')),
        ts: isoOfMs(ts),
        price: num(o.price, 'price'),
        size: num(o.size, 'size'),
        // The maker's side: the taker did the opposite.
        taker_side: o.side === 'buy' ? ('sell' as const) : ('buy' as const),
      };
    }),
  );
}

export const COINBASE: SpotVenue = {
  name: 'coinbase_spot',
  venue: 'coinbase',
  url: 'https://api.exchange.coinbase.com',
  // 17 markets x 2 requests = 34 a poll, one every 150 ms (~7/s, under the 10/s a public IP may send,
  // bursts of 15): a poll takes about 5 s, one every 20 s.
  cadenceMs: 20_000,
  gapMs: 150,
  note: 'Coinbase Exchange public market data (no key); trade side inverted (Coinbase reports the maker side)',
  markets: COINBASE_MARKETS,
  candles1m: async (get, url, product) =>
    parseCoinbaseCandles(await get(`${url}/products/${product}/candles?granularity=60`)),
  trades: async (get, url, product) => ({
    rows: parseCoinbaseTrades(await get(`${url}/products/${product}/trades?limit=${TRADES_LIMIT}`)),
  }),
};

export const coinbaseSpot = spotConnector(COINBASE);
