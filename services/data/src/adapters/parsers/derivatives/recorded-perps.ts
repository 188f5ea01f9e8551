import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Bar } from '../../../domain/series/bar.js';
import { toColumns, type BarColumns } from '../../../domain/series/bar-columns.js';
import { FIXTURES_DIR } from '../spot/recorded-market.js';

/**
 * One 1m bar of a perpetual in the format of Binance's public USD-M futures archive: trade prices
 * (last price, not the exchange's mark), the volume in the base asset and its quote value, and the
 * part of each that takers bought.
 */
export interface PerpBar extends Bar {
  quote_volume: number;
  trade_count: number;
  taker_buy_volume: number;
  taker_buy_quote_volume: number;
}

/** A recorded perpetual: the venue and symbol it is stored as, and the spot book it is priced against. */
export interface RecordedPerp {
  venue: string;
  symbol: string;
  file: string;
  /**
   * The recorded spot market in the perp's own quote whose close of the same minute is the perp's
   * index (Binance's index of a USDT perp is a spot price in USDT); none where no spot was recorded.
   */
  index?: { venue: string; symbol: string };
}

export const RECORDED_PERPS: readonly RecordedPerp[] = [
  {
    venue: 'binance_futures',
    symbol: 'BTC-USDT',
    file: 'binance_usdm_perp_BTCUSDT_1m_2023-03-08_2023-03-14.csv.gz',
    index: { venue: 'binanceus', symbol: 'BTC-USDT' },
  },
  {
    venue: 'binance_futures',
    symbol: 'ETH-USDT',
    file: 'binance_usdm_perp_ETHUSDT_1m_2023-03-08_2023-03-14.csv.gz',
  },
];

const HEADER = [
  'open_time',
  'open',
  'high',
  'low',
  'close',
  'volume',
  'close_time',
  'quote_volume',
  'count',
  'taker_buy_volume',
  'taker_buy_quote_volume',
  'ignore',
].join(',');

/**
 * Parses Binance's USD-M kline CSV (`open_time` in ms, ..., `taker_buy_quote_volume`, `ignore`), the
 * header optional, ascending by open time. A line that is not a whole bar of positive prices with
 * the taker part within the volume is refused with its line number: a recording is data we vouch
 * for, so a damaged one must not be played.
 */
export function parsePerpBars(text: string): PerpBar[] {
  const bars: PerpBar[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line === HEADER) return;
    const bar = perpBar(line.split(',').map(Number));
    if (!bar) throw new Error(`line ${i + 1} is not a 1m perpetual bar: ${line.slice(0, 80)}`);
    bars.push(bar);
  });
  return bars.sort((a, b) => a.ts - b.ts);
}

function perpBar(cells: number[]): PerpBar | undefined {
  if (cells.length !== 12 || cells.some((c) => !Number.isFinite(c))) return undefined;
  const [ts, open, high, low, close, volume, , quoteVolume, count, takerBuy, takerBuyQuote] = cells as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const prices = [open, high, low, close];
  if (prices.some((p) => !(p > 0)) || low > Math.min(open, close) || high < Math.max(open, close))
    return undefined;
  if (volume < 0 || takerBuy < 0 || takerBuy > volume || takerBuyQuote < 0 || takerBuyQuote > quoteVolume)
    return undefined;
  return {
    ts,
    open,
    high,
    low,
    close,
    volume,
    quote_volume: quoteVolume,
    trade_count: count,
    taker_buy_volume: takerBuy,
    taker_buy_quote_volume: takerBuyQuote,
  };
}

/**
 * A recorded perp held for as long as the replay runs: its bars as columns (bar-columns.ts) and, at
 * the same indexes, the quote volume and the taker-bought parts.
 */
export interface PerpColumns {
  bars: BarColumns;
  quoteVolume: Float64Array;
  takerBuyVolume: Float64Array;
  takerBuyQuoteVolume: Float64Array;
}

export function loadRecordedPerp(perp: RecordedPerp, dir = FIXTURES_DIR): PerpColumns {
  const bars = parsePerpBars(gunzipSync(readFileSync(join(dir, perp.file))).toString('utf8'));
  return {
    bars: toColumns(bars, bars.length),
    quoteVolume: Float64Array.from(bars, (b) => b.quote_volume),
    takerBuyVolume: Float64Array.from(bars, (b) => b.taker_buy_volume),
    takerBuyQuoteVolume: Float64Array.from(bars, (b) => b.taker_buy_quote_volume),
  };
}
