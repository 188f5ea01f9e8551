import { LIVE_SPOT_VENUES, type CandleRow, type TradeRow } from '@meridian/contracts';
import {
  arrayOf,
  candleOfArray,
  concatenatedSymbols,
  isoOfMs,
  num,
  objectOf,
  oldestFirst,
  realTrades,
  spotConnector,
  type SpotVenue,
} from './spot-venue.js';

/**
 * Binance spot (api.binance.com, public market data, no key). Binance lists no USD books: its dollar
 * legs are USDT and USDC. Klines: `[openTime, "open", "high", "low", "close", "volume", closeTime,
 * "quoteVolume", trades, "takerBuyBase", "takerBuyQuote", "ignore"]`, oldest first, the current minute
 * included (stored, then corrected by the next poll). Aggregate trades `{a, p, q, f, l, T, m, M}`:
 * `m` (buyer is the maker) true means the taker sold. An error is HTTP 4xx with `{"code":-1121,"msg":...}`.
 */
export const BINANCE_MARKETS: Readonly<Record<string, string>> = concatenatedSymbols(
  LIVE_SPOT_VENUES.binance!,
);

/** aggTrades answers at most this many. */
const TRADES_LIMIT = 1000;

/** Binance klines, 1m or 1s alike. */
function klines(body: unknown): CandleRow[] {
  return oldestFirst(
    arrayOf(body, 'klines').map((k, i) => {
      // After the volume: close time, quote volume, then the number of trades.
      const { rest, ...candle } = candleOfArray(k, `kline ${i}`);
      return { ...candle, trade_count: num(rest[2], 'number of trades') };
    }),
  );
}

export function parseBinanceAggTrades(body: unknown): TradeRow[] {
  return realTrades(
    arrayOf(body, 'aggTrades').map((t, i) => {
      const o = objectOf(t, `aggTrade ${i}`);
      if (typeof o.m !== 'boolean') throw new Error(`aggTrade ${i}: m is not a boolean`);
      return {
        trade_id: String(num(o.a, 'aggregate trade id')),
        ts: isoOfMs(num(o.T, 'trade time')),
        price: num(o.p, 'price'),
        size: num(o.q, 'quantity'),
        taker_side: o.m ? ('sell' as const) : ('buy' as const),
      };
    }),
  );
}

export const BINANCE: SpotVenue = {
  name: 'binance_spot',
  venue: 'binance',
  url: 'https://api.binance.com',
  // 9 markets x (klines 1m, klines 1s, aggTrades) = 27 requests of weight 2-4, about 72 weight a poll:
  // every 10 s that is ~430 of the 6000 weight a minute Binance allows one IP.
  cadenceMs: 10_000,
  gapMs: 50,
  note: 'Binance spot public market data (no key); Binance refuses some regions (451: retried hourly)',
  markets: BINANCE_MARKETS,
  candles1m: async (get, url, symbol, first) =>
    klines(await get(`${url}/api/v3/klines?symbol=${symbol}&interval=1m&limit=${first ? 1000 : 10}`)),
  candles1s: async (get, url, symbol, first) =>
    klines(await get(`${url}/api/v3/klines?symbol=${symbol}&interval=1s&limit=${first ? 1000 : 60}`)),
  trades: async (get, url, symbol, cursor) => {
    // fromId is inclusive: the last trade seen comes again, which shows the answer follows on. A full
    // page means we fell behind (an outage): the next poll asks for the newest instead of catching up.
    const from = cursor === undefined ? '' : `&fromId=${cursor}`;
    const rows = parseBinanceAggTrades(
      await get(`${url}/api/v3/aggTrades?symbol=${symbol}&limit=${TRADES_LIMIT}${from}`),
    );
    return { rows, next: rows.length >= TRADES_LIMIT ? undefined : (rows.at(-1)?.trade_id ?? cursor) };
  },
};

export const binanceSpot = spotConnector(BINANCE);
