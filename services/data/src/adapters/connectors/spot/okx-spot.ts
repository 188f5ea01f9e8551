import type { CandleRow, TradeRow } from '@meridian/contracts';
import {
  arrayOf,
  candleOfArray,
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
 * OKX (www.okx.com, public market data, no key). Instrument ids are BASE-QUOTE; OKX's global site
 * lists USDT and USDC books, not USD. Every answer is `{"code": "0", "msg": "", "data": [...]}`: a code
 * other than "0" is a refusal even with HTTP 200 ("50011" too many requests). Candles
 * `["ts" (ms), "o", "h", "l", "c", "vol" (base), "volCcy", "volCcyQuote", "confirm"]`, newest first;
 * trades `{instId, tradeId, px, sz, side, ts}`, newest first, `side` the taker's.
 */
export const OKX_MARKETS: Readonly<Record<string, string>> = {
  'BTC-USDT': 'BTC-USDT',
  'BTC-USDC': 'BTC-USDC',
  'ETH-USDT': 'ETH-USDT',
  'ETH-USDC': 'ETH-USDC',
  'SOL-USDT': 'SOL-USDT',
  'SOL-USDC': 'SOL-USDC',
  'XRP-USDT': 'XRP-USDT',
  'DOGE-USDT': 'DOGE-USDT',
  'ADA-USDT': 'ADA-USDT',
};

const TRADES_LIMIT = 500;

function okxData(body: unknown): unknown[] {
  const o = objectOf(body, 'answer');
  if (o.code !== '0') throw venueRefusal('okx', String(o.code), String(o.msg ?? ''));
  return arrayOf(o.data, 'data');
}

export function parseOkxCandles(body: unknown): CandleRow[] {
  return oldestFirst(
    okxData(body).map((c, i) => {
      const { rest: _quoteVolumes, ...candle } = candleOfArray(c, `candle ${i}`);
      return candle;
    }),
  );
}

export function parseOkxTrades(body: unknown): TradeRow[] {
  return realTrades(
    okxData(body).map((t, i) => {
      const o = objectOf(t, `trade ${i}`);
      if (o.side !== 'buy' && o.side !== 'sell') throw new Error(`trade ${i}: side is ${String(o.side)}`);
      if (typeof o.tradeId !== 'string' || o.tradeId === '') throw new Error(`trade ${i}: no tradeId`);
      return {
        trade_id: o.tradeId,
        ts: isoOfMs(num(o.ts, 'ts')),
        price: num(o.px, 'px'),
        size: num(o.sz, 'sz'),
        taker_side: o.side,
      };
    }),
  );
}

export const OKX: SpotVenue = {
  name: 'okx_spot',
  venue: 'okx',
  url: 'https://www.okx.com',
  // 9 markets x 2 requests = 18 a poll, one every 100 ms: under OKX's 40 candle and 100 trade requests
  // per 2 s per IP; a poll every 10 s.
  cadenceMs: 10_000,
  gapMs: 100,
  note: 'OKX public market data (no key)',
  markets: OKX_MARKETS,
  candles1m: async (get, url, inst, first) =>
    parseOkxCandles(
      await get(`${url}/api/v5/market/candles?instId=${inst}&bar=1m&limit=${first ? 300 : 10}`),
    ),
  trades: async (get, url, inst) => ({
    rows: parseOkxTrades(await get(`${url}/api/v5/market/trades?instId=${inst}&limit=${TRADES_LIMIT}`)),
  }),
};

export const okxSpot = spotConnector(OKX);
