import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Bar } from '../../../domain/series/bar.js';
import { toColumns, type BarColumns } from '../../../domain/series/bar-columns.js';

/** The recorded real 1m bars shipped with the service (fixtures/market, see its README). */
export const FIXTURES_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
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
  return [...barsOf(text, format)].sort((a, b) => a.ts - b.ts);
}

/** The bars of a venue's CSV in file order, one line at a time (no array of the file's lines). */
function* barsOf(text: string, format: RecordedMarket['format']): Generator<Bar> {
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    const bar = parseLine(line, format);
    if (bar) yield bar;
  }
}

function parseLine(line: string, format: RecordedMarket['format']): Bar | undefined {
  const cells = line.trim().split(',');
  if (cells.length < 6 || cells[0] === 'open_time') return undefined;
  const ts = format === 'kraken' ? Number(cells[0]) * 1000 : Date.parse(cells[0]!.replace(' ', 'T'));
  const [open, high, low, close, volume] = cells.slice(1, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const count = format === 'kraken' && cells[6] !== undefined ? Number(cells[6]) : null;
  if (!Number.isFinite(ts) || !(open > 0)) return undefined;
  return { ts, open, high, low, close, volume, trade_count: count };
}

function readRecorded(market: RecordedMarket, dir: string): string {
  return gunzipSync(readFileSync(join(dir, market.file))).toString('utf8');
}

export function loadRecordedBars(market: RecordedMarket, dir = FIXTURES_DIR): Bar[] {
  return parseBars(readRecorded(market, dir), market.format);
}

/**
 * The recorded bars of a market as columns (domain/series/bar-columns.ts), parsed straight into
 * them: the replay holds these for as long as it runs, and never the bars as objects.
 */
export function loadRecordedColumns(market: RecordedMarket, dir = FIXTURES_DIR): BarColumns {
  const text = readRecorded(market, dir);
  return toColumns(barsOf(text, market.format), lineCount(text));
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
