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
import { venueRefusal } from '../venue-refusals.js';

/**
 * Bybit v5 (api.bybit.com, public market data, no key), category `spot`: USDT and USDC books. Every
 * answer is `{"retCode": 0, "retMsg": "OK", "result": {...}, "retExtInfo": {}, "time": ...}`: a retCode
 * other than 0 is a refusal even with HTTP 200 (10006 and 10018: too many requests). Klines
 * `result.list` `["startTime" (ms), "open", "high", "low", "close", "volume", "turnover"]`, newest
 * first; recent trades `result.list` `{execId, symbol, price, size, side: "Buy"|"Sell", time}`, newest
 * first, `side` the taker's; at most 60 on spot.
 */
export const BYBIT_MARKETS: Readonly<Record<string, string>> = concatenatedSymbols(LIVE_SPOT_VENUES.bybit!);

const TRADES_LIMIT = 60;

function bybitList(body: unknown): unknown[] {
  const o = objectOf(body, 'answer');
  if (o.retCode !== 0) throw venueRefusal('bybit', String(o.retCode), String(o.retMsg ?? ''));
  return arrayOf(objectOf(o.result, 'result').list, 'result.list');
}

export function parseBybitKlines(body: unknown): CandleRow[] {
  return oldestFirst(
    bybitList(body).map((k, i) => {
      const { rest: _turnover, ...candle } = candleOfArray(k, `kline ${i}`);
      return candle;
    }),
  );
}

export function parseBybitTrades(body: unknown): TradeRow[] {
  return realTrades(
    bybitList(body).map((t, i) => {
      const o = objectOf(t, `trade ${i}`);
      if (o.side !== 'Buy' && o.side !== 'Sell') throw new Error(`trade ${i}: side is ${String(o.side)}`);
      if (typeof o.execId !== 'string' || o.execId === '') throw new Error(`trade ${i}: no execId`);
      return {
        trade_id: o.execId,
        ts: isoOfMs(num(o.time, 'time')),
        price: num(o.price, 'price'),
        size: num(o.size, 'size'),
        taker_side: o.side === 'Buy' ? ('buy' as const) : ('sell' as const),
      };
    }),
  );
}

export const BYBIT: SpotVenue = {
  name: 'bybit_spot',
  venue: 'bybit',
  url: 'https://api.bybit.com',
  // 9 markets x 2 requests = 18 a poll, one every 50 ms: far under the 600 requests per 5 s per IP;
  // a poll every 5 s, since recent-trade answers only the last 60 trades of a spot market.
  cadenceMs: 5_000,
  gapMs: 50,
  note: 'Bybit v5 public market data (no key); spot recent trades are the last 60 only, so 1s bars of a busy market have gaps',
  markets: BYBIT_MARKETS,
  candles1m: async (get, url, symbol, first) =>
    parseBybitKlines(
      await get(
        `${url}/v5/market/kline?category=spot&symbol=${symbol}&interval=1&limit=${first ? 1000 : 10}`,
      ),
    ),
  trades: async (get, url, symbol) => ({
    rows: parseBybitTrades(
      await get(`${url}/v5/market/recent-trade?category=spot&symbol=${symbol}&limit=${TRADES_LIMIT}`),
    ),
  }),
};

export const bybitSpot = spotConnector(BYBIT);
