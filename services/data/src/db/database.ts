import type { ColumnType, Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';

/** Schema of this service; raw SQL names it, because withSchema only reaches the query builder. */
export const SCHEMA = 'data';

/** Written as a Date or an ISO string, read back as a Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** numeric: pg and PGlite answer a string (exact); written from a number. */
type Numeric = ColumnType<string, number | string, number | string>;

export interface CandleTable {
  source: string;
  symbol: string;
  /** Open time of the bar, UTC. */
  ts: Timestamp;
  base: string;
  quote: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** In the base currency. */
  volume: number;
  trade_count: number | null;
  ingested_at: Generated<Date>;
}

export interface CandleRollupTable extends Omit<CandleTable, 'ingested_at'> {
  bucket: '1h' | '1d';
  /** 1m bars in the bucket: the bucket is exact, and a gap shows as fewer bars. */
  bars: number;
}

/** What one market gave a combined bucket (see MemberTally). */
export interface CombinedMemberRow {
  venue: string;
  symbol: string;
  bars: number;
  left_out: number;
  last: number | null;
}

export interface CombinedRollupTable {
  /** `1m`: one combined 1m bar (bars 1, or 0 when every market's bar of the minute was left out). */
  bucket: '1m' | '1h' | '1d';
  base: string;
  /** Open time of the bucket, UTC. */
  ts: Timestamp;
  /** In USD; null exactly when bars is 0 (no market's bar of the bucket had a USD rate). */
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  volume: number;
  trade_count: number | null;
  /** Combined 1m bars in the bucket. */
  bars: number;
  markets: ColumnType<CombinedMemberRow[], string, string>;
}

export interface TradeTable {
  source: string;
  symbol: string;
  trade_id: string;
  ts: Timestamp;
  base: string;
  quote: string;
  price: number;
  size: number;
  taker_side: 'buy' | 'sell';
  ingested_at: Generated<Date>;
}

export interface OptionMarkTable {
  source: string;
  instrument: string;
  ts: Timestamp;
  underlying: string;
  expiry: Timestamp;
  strike: number;
  option_type: 'call' | 'put';
  underlying_px: number;
  mark_price_usd: number;
  /** Fraction (0.85 = 85 %). */
  mark_iv: number | null;
  delta: number | null;
  gamma: number | null;
  vega: number | null;
  theta: number | null;
  open_interest: number;
  ingested_at: Generated<Date>;
}

export interface FundingRateTable {
  source: string;
  symbol: string;
  ts: Timestamp;
  funding_rate: number;
  interval_hours: number | null;
  ingested_at: Generated<Date>;
}

export interface MarkPriceTable {
  source: string;
  symbol: string;
  ts: Timestamp;
  mark_price: number;
  index_price: number | null;
  ingested_at: Generated<Date>;
}

export interface ObservationTable {
  source: string;
  key: string;
  metric: string;
  ts: Timestamp;
  value: Numeric | null;
  payload: ColumnType<Record<string, unknown>, string, string>;
  ingested_at: Generated<Date>;
}

/** Tables of the `data` schema. */
/** Which replica polls a live upstream, until when (src/db/repositories/connector-leases.ts). */
export interface ConnectorLeaseTable {
  connector: string;
  holder: string;
  expires_at: Date;
  taken_at: Generated<Date>;
}

export interface Database extends OutboxTables {
  candles_1s: CandleTable;
  candles_1m: CandleTable;
  candle_rollups: CandleRollupTable;
  combined_rollups: CombinedRollupTable;
  trades: TradeTable;
  option_marks: OptionMarkTable;
  funding_rates: FundingRateTable;
  mark_prices: MarkPriceTable;
  observations: ObservationTable;
  connector_leases: ConnectorLeaseTable;
}
