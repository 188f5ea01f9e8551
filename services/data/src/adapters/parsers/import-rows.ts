import type { IngestBatchInput } from '@meridian/contracts';
import { recordedTime } from '../../domain/replay-clock.js';
import { csvRecords } from './csv.js';
import { parseDeribitOptions } from './derivatives/deribit.js';
import { parseBars } from './spot/recorded-market.js';

export type ImportKind = IngestBatchInput['kind'];

/** The number columns of each kind's row (ingestBatchSchema); every other column is text. */
const NUMBER_FIELDS: Record<ImportKind, readonly string[]> = {
  candles: ['open', 'high', 'low', 'close', 'volume', 'trade_count'],
  trades: ['price', 'size'],
  option_marks: [
    'strike',
    'underlying_px',
    'mark_price_usd',
    'mark_iv',
    'delta',
    'gamma',
    'vega',
    'theta',
    'open_interest',
  ],
  funding: ['funding_rate', 'interval_hours'],
  mark_prices: ['mark_price', 'index_price'],
  observations: ['value'],
};

/**
 * One CSV record as a batch row of `kind`: number columns as numbers (an empty cell as null, which
 * the schema accepts where the field is optional), observation payloads as JSON, the rest as text
 * (a trade_id of digits stays a string). The batch schema checks the result.
 */
function typedRow(kind: ImportKind, record: Record<string, string>): Record<string, unknown> {
  const numbers = new Set(NUMBER_FIELDS[kind]);
  const row: Record<string, unknown> = {};
  for (const [name, cell] of Object.entries(record)) {
    if (kind === 'observations' && name === 'payload') {
      if (cell !== '') row.payload = JSON.parse(cell) as unknown;
    } else if (numbers.has(name)) row[name] = cell === '' ? null : Number(cell);
    else row[name] = cell;
  }
  return row;
}

/** Deribit's own option-chain export (get_book_summary columns with greeks as a Python dict). */
const isDeribitChain = (header: string) => header.includes('instrument_name') && header.includes('greeks');

/**
 * The rows of an import file for a batch of `kind`: a JSON array of batch rows; or CSV — Binance.US and
 * Kraken candle exports and Deribit option-chain exports through the parsers the replay uses, any other
 * CSV by its header naming the row fields. Recorded times are kept as they are (a backfill is history).
 */
export function importRows(kind: ImportKind, fileName: string, text: string): Record<string, unknown>[] {
  if (fileName.replace(/\.gz$/, '').endsWith('.json')) {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) throw new Error(`${fileName}: a JSON import is an array of ${kind} rows`);
    return parsed as Record<string, unknown>[];
  }
  const firstLineEnd = text.indexOf('\n');
  const head = firstLineEnd < 0 ? text : text.slice(0, firstLineEnd);
  if (kind === 'candles') {
    const format = head.startsWith('open_time')
      ? 'binanceus'
      : /^\d{9,10},/.test(head)
        ? 'kraken'
        : undefined;
    if (format) return parseBars(text, format).map((b) => ({ ...b, ts: new Date(b.ts).toISOString() }));
  }
  if (kind === 'option_marks' && isDeribitChain(head))
    return parseDeribitOptions(text, recordedTime).rows as Record<string, unknown>[];
  return csvRecords(text).map((r) => typedRow(kind, r));
}
