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
 * Kraken (api.kraken.com, public market data, no key). Kraken calls bitcoin XBT and doge XDG, and its
 * older pairs carry X/Z prefixes (XXBTZUSD); the answer's `result` is keyed by Kraken's own pair name
 * beside a `last` cursor. Every answer is `{"error": [...], "result": {...}}`: a non-empty `error` is a
 * refusal even with HTTP 200 (`EAPI:Rate limit exceeded`, `EGeneral:Too many requests` are rate limits).
 * OHLC rows `[time (s), "open", "high", "low", "close", "vwap", "volume", count]`, oldest first; trades
 * `["price", "volume", time (s, fraction), "b"|"s", "m"|"l", "misc", trade_id]`, where b/s is the
 * taker's side; `last` (ns) is the `since` of the next request.
 */
export const KRAKEN_MARKETS: Readonly<Record<string, string>> = {
  'BTC-USD': 'XXBTZUSD',
  'BTC-USDT': 'XBTUSDT',
  'BTC-USDC': 'XBTUSDC',
  'ETH-USD': 'XETHZUSD',
  'ETH-USDT': 'ETHUSDT',
  'ETH-USDC': 'ETHUSDC',
  'SOL-USD': 'SOLUSD',
  'SOL-USDT': 'SOLUSDT',
  'SOL-USDC': 'SOLUSDC',
  'XRP-USD': 'XXRPZUSD',
  'XRP-USDT': 'XRPUSDT',
  'DOGE-USD': 'XDGUSD',
  'DOGE-USDT': 'XDGUSDT',
  'ADA-USD': 'ADAUSD',
  'ADA-USDT': 'ADAUSDT',
  'AVAX-USD': 'AVAXUSD',
  'LINK-USD': 'LINKUSD',
  'LTC-USD': 'XLTCZUSD',
  'DOT-USD': 'DOTUSD',
  'USDT-USD': 'USDTZUSD',
  'USDC-USD': 'USDCUSD',
};

/** Trades answers at most this many. */
const TRADES_LIMIT = 1000;

/** The rows of the one pair of a `result`, and its `last`; a non-empty `error` is thrown as the refusal. */
function pairResult(body: unknown): { rows: unknown[]; last: unknown } {
  const o = objectOf(body, 'answer');
  const errors = arrayOf(o.error, 'error').map(String);
  if (errors.length > 0) throw venueRefusal('kraken', errors, '');
  const result = objectOf(o.result, 'result');
  const pairs = Object.keys(result).filter((k) => k !== 'last');
  if (pairs.length !== 1) throw new Error(`result holds ${pairs.length} pairs, not one`);
  return { rows: arrayOf(result[pairs[0]!], pairs[0]!), last: result.last };
}

export function parseKrakenOhlc(body: unknown): CandleRow[] {
  return oldestFirst(
    pairResult(body).rows.map((r, i) => {
      const [time, open, high, low, close, , volume, count] = arrayOf(r, `ohlc ${i}`);
      return {
        ts: isoOfMs(num(time, 'time') * 1000),
        open: num(open, 'open'),
        high: num(high, 'high'),
        low: num(low, 'low'),
        close: num(close, 'close'),
        volume: num(volume, 'volume'),
        trade_count: num(count, 'count'),
      };
    }),
  );
}

export function parseKrakenTrades(body: unknown): { rows: TradeRow[]; last: string | undefined } {
  const { rows, last } = pairResult(body);
  const trades = rows.map((r, i) => {
    const [price, volume, time, side, , , id] = arrayOf(r, `trade ${i}`);
    if (side !== 'b' && side !== 's') throw new Error(`trade ${i}: side is ${String(side)}`);
    return {
      trade_id: String(num(id, 'trade_id')),
      // Kraken's time has microseconds; ours keep milliseconds.
      ts: isoOfMs(Math.round(num(time, 'time') * 1000)),
      price: num(price, 'price'),
      size: num(volume, 'volume'),
      taker_side: side === 'b' ? ('buy' as const) : ('sell' as const),
    };
  });
  return { rows: realTrades(trades), last: last === undefined ? undefined : String(last) };
}

export const KRAKEN: SpotVenue = {
  name: 'kraken_spot',
  venue: 'kraken',
  url: 'https://api.kraken.com',
  // Kraken allows about one public request a second per IP: 21 markets x 2 requests, one every 1.1 s,
  // take ~46 s, so a poll a minute (OHLC answers the last 720 minutes, trades follow `last`: no gap).
  cadenceMs: 60_000,
  gapMs: 1100,
  note: 'Kraken public market data (no key); XBT is BTC, XDG is DOGE',
  markets: KRAKEN_MARKETS,
  // The first poll takes Kraken's whole window (720 minutes), later ones the last ten minutes only.
  candles1m: async (get, url, pair, first) => {
    const since = first ? '' : `&since=${Math.floor(Date.now() / 1000) - 600}`;
    return parseKrakenOhlc(await get(`${url}/0/public/OHLC?pair=${pair}&interval=1${since}`));
  },
  trades: async (get, url, pair, cursor) => {
    const since = cursor === undefined ? '' : `&since=${cursor}`;
    const page = parseKrakenTrades(
      await get(`${url}/0/public/Trades?pair=${pair}&count=${TRADES_LIMIT}${since}`),
    );
    // A full page after a cursor means we fell behind: ask for the newest next time rather than catch up.
    const behind = page.rows.length >= TRADES_LIMIT;
    return {
      rows: page.rows,
      next: behind ? undefined : (page.last ?? cursor),
      ...(cursor === undefined ? {} : { complete: !behind }),
    };
  },
};

export const krakenSpot = spotConnector(KRAKEN);
