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
import { venueRefusal } from '../venue-refusals.js';

/**
 * Bitstamp (www.bitstamp.net, public API v2, no key). Pairs are lower-case base+quote (`btcusd`).
 * OHLC `{"data": {"pair": "BTC/USD", "ohlc": [{timestamp (s), open, high, low, close, volume}]}}`, all
 * strings, oldest first; transactions `[{date (s), tid, price, amount, type}]`, newest first, where
 * type 0 is a buy and 1 a sell by the taker. A refusal is `{"status": "error", "reason": ..., "code": ...}`
 * (HTTP 4xx, or 200 on some routes).
 */
export const BITSTAMP_MARKETS: Readonly<Record<string, string>> = {
  'BTC-USD': 'btcusd',
  'BTC-USDT': 'btcusdt',
  'BTC-USDC': 'btcusdc',
  'ETH-USD': 'ethusd',
  'ETH-USDT': 'ethusdt',
  'ETH-USDC': 'ethusdc',
  'SOL-USD': 'solusd',
  'XRP-USD': 'xrpusd',
  'XRP-USDT': 'xrpusdt',
  'DOGE-USD': 'dogeusd',
  'ADA-USD': 'adausd',
  'AVAX-USD': 'avaxusd',
  'LINK-USD': 'linkusd',
  'LTC-USD': 'ltcusd',
  'DOT-USD': 'dotusd',
  'USDT-USD': 'usdtusd',
  'USDC-USD': 'usdcusd',
};

/** The refusal of an answer that says `status: error`, thrown; else the answer. */
function accepted(body: unknown): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    if (o.status === 'error')
      throw venueRefusal('bitstamp', String(o.code ?? 'error'), JSON.stringify(o.reason ?? '').slice(0, 200));
  }
  return body;
}

export function parseBitstampOhlc(body: unknown): CandleRow[] {
  const data = objectOf(objectOf(accepted(body), 'answer').data, 'data');
  return oldestFirst(
    arrayOf(data.ohlc, 'data.ohlc').map((c, i) => {
      const o = objectOf(c, `ohlc ${i}`);
      return {
        ts: isoOfMs(num(o.timestamp, 'timestamp') * 1000),
        open: num(o.open, 'open'),
        high: num(o.high, 'high'),
        low: num(o.low, 'low'),
        close: num(o.close, 'close'),
        volume: num(o.volume, 'volume'),
      };
    }),
  );
}

export function parseBitstampTransactions(body: unknown): TradeRow[] {
  return realTrades(
    arrayOf(accepted(body), 'transactions').map((t, i) => {
      const o = objectOf(t, `transaction ${i}`);
      const type = String(o.type);
      if (type !== '0' && type !== '1') throw new Error(`transaction ${i}: type is ${type}`);
      return {
        trade_id: String(num(o.tid, 'tid')),
        ts: isoOfMs(num(o.date, 'date') * 1000),
        price: num(o.price, 'price'),
        size: num(o.amount, 'amount'),
        taker_side: type === '0' ? ('buy' as const) : ('sell' as const),
      };
    }),
  );
}

export const BITSTAMP: SpotVenue = {
  name: 'bitstamp_spot',
  venue: 'bitstamp',
  url: 'https://www.bitstamp.net',
  // 17 markets x 2 requests = 34 a poll, one every 50 ms: far under 400 requests a second and 10 000 per
  // 10 minutes (34 every 15 s is 1360 per 10 min); `time=minute` covers four polls, so no trade is missed.
  cadenceMs: 15_000,
  gapMs: 50,
  note: 'Bitstamp public API v2 (no key); transaction timestamps are whole seconds',
  markets: BITSTAMP_MARKETS,
  candles1m: async (get, url, pair, first) =>
    parseBitstampOhlc(await get(`${url}/api/v2/ohlc/${pair}/?step=60&limit=${first ? 1000 : 10}`)),
  trades: async (get, url, pair) => ({
    rows: parseBitstampTransactions(await get(`${url}/api/v2/transactions/${pair}/?time=minute`)),
  }),
};

export const bitstampSpot = spotConnector(BITSTAMP);
