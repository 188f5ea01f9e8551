import { z } from 'zod';

/**
 * rpc.data.ingest.v1 — the one way data enters the data service (connectors, replay, importer).
 * Idempotent on (source, key, timestamp): a batch sent twice changes nothing the second time.
 * Prices are plain numbers in the quote currency of the symbol; symbols are BASE-QUOTE.
 */
const isoTime = z.string().datetime({ offset: true });
const source = z.string().min(1).max(64);
const symbol = z
  .string()
  .regex(/^[A-Z0-9]{2,12}-[A-Z0-9]{2,12}$/, 'symbol must be BASE-QUOTE, e.g. BTC-USDC')
  .max(25);

export const candleRowSchema = z.object({
  ts: isoTime,
  open: z.number().positive(),
  high: z.number().positive(),
  low: z.number().positive(),
  close: z.number().positive(),
  volume: z.number().nonnegative(),
  trade_count: z.number().int().nonnegative().nullable().optional(),
});

export const tradeRowSchema = z.object({
  trade_id: z.string().min(1).max(128),
  ts: isoTime,
  price: z.number().positive(),
  size: z.number().positive(),
  /** The taker's side, normalised: buy when the aggressor lifted the ask. */
  taker_side: z.enum(['buy', 'sell']),
});

export const optionMarkRowSchema = z.object({
  instrument: z.string().min(1).max(64),
  ts: isoTime,
  underlying: z.string().min(1).max(16),
  expiry: isoTime,
  strike: z.number().positive(),
  option_type: z.enum(['call', 'put']),
  underlying_px: z.number().positive(),
  mark_price_usd: z.number().nonnegative(),
  /** Fraction, e.g. 0.85 for 85 %. */
  mark_iv: z.number().nonnegative().nullable(),
  delta: z.number().nullable(),
  gamma: z.number().nullable(),
  vega: z.number().nullable(),
  theta: z.number().nullable(),
  open_interest: z.number().nonnegative(),
});

export const fundingRowSchema = z.object({
  ts: isoTime,
  funding_rate: z.number(),
  /** Hours between fundings, when the venue says. */
  interval_hours: z.number().positive().nullable().optional(),
});

export const markPriceRowSchema = z.object({
  ts: isoTime,
  mark_price: z.number().positive(),
  index_price: z.number().positive().nullable().optional(),
});

export const observationRowSchema = z.object({
  /** Entity of the observation (a city, a league, a fund); '' for metrics with no entity. */
  key: z.string().max(128),
  metric: z.string().min(1).max(64),
  ts: isoTime,
  value: z.number().nullable(),
  payload: z.record(z.string(), z.unknown()).default({}),
});

const MAX_ROWS = 50_000;

export const ingestBatchSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('candles'),
    source,
    symbol,
    interval: z.enum(['1s', '1m']),
    rows: z.array(candleRowSchema).max(MAX_ROWS),
  }),
  z.object({ kind: z.literal('trades'), source, symbol, rows: z.array(tradeRowSchema).max(MAX_ROWS) }),
  z.object({ kind: z.literal('option_marks'), source, rows: z.array(optionMarkRowSchema).max(MAX_ROWS) }),
  z.object({ kind: z.literal('funding'), source, symbol, rows: z.array(fundingRowSchema).max(MAX_ROWS) }),
  z.object({
    kind: z.literal('mark_prices'),
    source,
    symbol,
    rows: z.array(markPriceRowSchema).max(MAX_ROWS),
  }),
  z.object({
    kind: z.literal('observations'),
    source,
    rows: z.array(observationRowSchema).max(MAX_ROWS),
  }),
]);

export type IngestBatch = z.infer<typeof ingestBatchSchema>;
export type IngestBatchInput = z.input<typeof ingestBatchSchema>;
export type CandleRow = z.infer<typeof candleRowSchema>;
export type TradeRow = z.infer<typeof tradeRowSchema>;
export type OptionMarkRow = z.infer<typeof optionMarkRowSchema>;
export type ObservationRow = z.infer<typeof observationRowSchema>;

/** Reply of rpc.data.ingest.v1: what the batch changed. A replayed batch answers inserted 0, updated 0. */
export const ingestSummarySchema = z.object({
  kind: z.string(),
  received: z.number().int(),
  inserted: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
});
export type IngestSummary = z.infer<typeof ingestSummarySchema>;
