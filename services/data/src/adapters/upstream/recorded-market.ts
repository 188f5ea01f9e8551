import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Bar } from '../../domain/series/bar.js';

/** The recorded real 1m bars shipped with the service (fixtures/market, see its README). */
export const FIXTURES_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'fixtures',
  'market',
);

export interface RecordedMarket {
  venue: string;
  symbol: string;
  file: string;
  format: 'binanceus' | 'kraken';
}

export const RECORDED_MARKETS: readonly RecordedMarket[] = [
  {
    venue: 'binanceus',
    symbol: 'BTC-USD',
    file: 'binanceus_BTCUSD_1m_2023-03-08_2023-03-14.csv.gz',
    format: 'binanceus',
  },
  {
    venue: 'binanceus',
    symbol: 'BTC-USDT',
    file: 'binanceus_BTCUSDT_1m_2023-03-08_2023-03-14.csv.gz',
    format: 'binanceus',
  },
  {
    venue: 'binanceus',
    symbol: 'BTC-USDC',
    file: 'binanceus_BTCUSDC_1m_2023-03-08_2023-03-14.csv.gz',
    format: 'binanceus',
  },
  {
    venue: 'kraken',
    symbol: 'BTC-USDC',
    file: 'kraken_BTCUSDC_1m_2023-03-08_2023-03-14.csv.gz',
    format: 'kraken',
  },
];

/** First minute and length of the recording: 2023-03-08 00:00 UTC, seven days (the USDC depeg is inside). */
export const RECORDING = { start: Date.parse('2023-03-08T00:00:00Z'), spanMs: 7 * 86_400_000 } as const;

/**
 * Parses a venue's own CSV: Binance.US `open_time,open,high,low,close,volume` with a header and
 * ISO times; Kraken `unix_seconds,open,high,low,close,volume,trade_count` without a header, minutes
 * with no trade absent. Empty minutes of Binance.US (volume 0, flat price) are kept as the venue gave them.
 */
export function parseBars(text: string, format: RecordedMarket['format']): Bar[] {
  const bars: Bar[] = [];
  for (const line of text.split('\n')) {
    const cells = line.trim().split(',');
    if (cells.length < 6 || cells[0] === 'open_time') continue;
    const ts = format === 'kraken' ? Number(cells[0]) * 1000 : Date.parse(cells[0]!.replace(' ', 'T'));
    const [open, high, low, close, volume] = cells.slice(1, 6).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const count = format === 'kraken' && cells[6] !== undefined ? Number(cells[6]) : null;
    if (!Number.isFinite(ts) || !(open > 0)) continue;
    bars.push({ ts, open, high, low, close, volume, trade_count: count });
  }
  return bars.sort((a, b) => a.ts - b.ts);
}

export function loadRecordedBars(market: RecordedMarket, dir = FIXTURES_DIR): Bar[] {
  const raw = readFileSync(join(dir, market.file));
  return parseBars(gunzipSync(raw).toString('utf8'), market.format);
}
