import type { IngestBatch } from '@meridian/contracts';
import {
  loadRecordedPerp,
  RECORDED_PERPS,
  type PerpColumns,
  type RecordedPerp,
} from '../../adapters/parsers/derivatives/recorded-perps.js';
import { RECORDING } from '../../adapters/parsers/spot/recorded-market.js';
import {
  derivedMark,
  estimatedFunding,
  FUNDING_INTERVAL_MS,
  fundingIntervalStart,
  MARK_WINDOW_MINUTES,
  premiumIndex,
  type PerpMinute,
} from '../../domain/derivatives/perp-derivations.js';
import { PERP_BAR_METRIC } from '../../domain/feeds/observation-keys.js';
import { loopedSpans } from '../../domain/replay-clock.js';
import { firstAtOrAfter, valueAt } from '../../domain/series/bar-columns.js';
import { ingestOwn, type Ingestor } from '../../flows/ingestor.js';

const BAR_MS = 60_000;

export const PERP_REPLAY_METHOD =
  'Replay of recorded data: real Binance USD-M perpetual 1m trade bars (BTCUSDT, ETHUSDT) of 2023-03-08 to 2023-03-14 (UTC), looped and shifted to the present on the spot replay clock; no mark price or funding rate was recorded, so marks and any funding figure are derived (the method says how); no live venue print.';

/** The close of a recorded spot market at a recorded minute (the perp's index), if recorded. */
export type IndexAt = (market: { venue: string; symbol: string }, recordedTs: number) => number | undefined;

const parsed = new Map<string, PerpColumns>();
function perpColumns(perp: RecordedPerp): PerpColumns {
  let cols = parsed.get(perp.file);
  if (!cols) parsed.set(perp.file, (cols = loadRecordedPerp(perp)));
  return cols;
}

/** A perp's index and premium index at every recorded minute (NaN where no index was recorded). */
interface Premiums {
  index: Float64Array;
  premium: Float64Array;
}

/**
 * The index and premium of every recorded minute of a perp, computed once per process: a funding
 * estimate reads up to 480 minutes back at every minute played.
 */
const premiums = new WeakMap<IndexAt, Map<string, Premiums>>();
function premiumsOf(perp: RecordedPerp, cols: PerpColumns, indexAt: IndexAt): Premiums {
  let byFile = premiums.get(indexAt);
  if (!byFile) premiums.set(indexAt, (byFile = new Map()));
  let found = byFile.get(perp.file);
  if (!found) {
    const { bars } = cols;
    const market = perp.index;
    const index = Float64Array.from({ length: bars.length }, (_, i) =>
      market ? (indexAt(market, valueAt(bars.ts, i)) ?? NaN) : NaN,
    );
    const premium = index.map((x, i) => (Number.isNaN(x) ? NaN : premiumIndex(valueAt(bars.close, i), x)));
    byFile.set(perp.file, (found = { index, premium }));
  }
  return found;
}

/**
 * Plays the recorded perps' bars whose looped minute falls in [from, to) of wall time, as a bar's
 * minute is over: per minute a mark (and its index), a funding estimate where an index was recorded,
 * and the bar itself as an observation, each dated at the bar's close.
 */
export async function ingestPerpRange(ingestor: Ingestor, indexAt: IndexAt, from: number, to: number) {
  for (const perp of RECORDED_PERPS) {
    const batches = perpBatches(perp, perpColumns(perp), indexAt, from, to);
    for (const batch of batches) if (batch.rows.length > 0) await ingestOwn(ingestor, batch);
  }
}

function perpBatches(
  perp: RecordedPerp,
  cols: PerpColumns,
  indexAt: IndexAt,
  from: number,
  to: number,
): IngestBatch[] {
  const { venue: source, symbol } = perp;
  const marks = { kind: 'mark_prices' as const, source, symbol, rows: [] as MarkRow[] };
  const funding = { kind: 'funding' as const, source, symbol, rows: [] as FundingRow[] };
  const bars = { kind: 'observations' as const, source, rows: [] as ObservationRow[] };
  const bar = cols.bars;
  const { index, premium } = premiumsOf(perp, cols, indexAt);
  const minute = (j: number): PerpMinute => ({
    close: valueAt(bar.close, j),
    index: Number.isNaN(index[j]!) ? undefined : index[j]!,
  });
  for (const span of loopedSpans(RECORDING, from, to))
    for (let i = firstAtOrAfter(bar, span.from); i < bar.length && valueAt(bar.ts, i) < span.to; i++) {
      const recorded = valueAt(bar.ts, i);
      const ts = new Date(recorded + span.shiftMs + BAR_MS).toISOString();
      const window = range(Math.max(0, i - MARK_WINDOW_MINUTES + 1), i).map(minute);
      marks.rows.push({ ts, ...derivedMark(window) });
      const rate = perp.index ? fundingEstimate(cols, i, premium) : undefined;
      if (rate !== undefined) funding.rows.push({ ts, funding_rate: rate, interval_hours: 8 });
      bars.rows.push({
        key: symbol,
        metric: PERP_BAR_METRIC,
        ts,
        value: valueAt(bar.close, i),
        payload: barPayload(cols, i),
      });
    }
  return [marks, funding, bars];
}

/** The funding estimate at minute i: from the premiums of its 8-hour interval up to and including it. */
function fundingEstimate(cols: PerpColumns, i: number, premium: Float64Array) {
  const start = fundingIntervalStart(valueAt(cols.bars.ts, i));
  const first = Math.max(firstAtOrAfter(cols.bars, start), i + 1 - FUNDING_INTERVAL_MS / BAR_MS);
  return estimatedFunding(premium.subarray(first, i + 1));
}

function barPayload(cols: PerpColumns, i: number) {
  const b = cols.bars;
  return {
    open: valueAt(b.open, i),
    high: valueAt(b.high, i),
    low: valueAt(b.low, i),
    close: valueAt(b.close, i),
    volume: valueAt(b.volume, i),
    quote_volume: cols.quoteVolume[i]!,
    trade_count: valueAt(b.tradeCount, i),
    taker_buy_volume: cols.takerBuyVolume[i]!,
    taker_buy_quote_volume: cols.takerBuyQuoteVolume[i]!,
    recorded_open_time: new Date(valueAt(b.ts, i)).toISOString(),
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

type MarkRow = { ts: string; mark_price: number; index_price: number | null };
type FundingRow = { ts: string; funding_rate: number; interval_hours: number };
type ObservationRow = {
  key: string;
  metric: string;
  ts: string;
  value: number;
  payload: Record<string, unknown>;
};

/** The perps the replay plays, by `venue:symbol` as sources of an answer name them: whether an index was recorded. */
export const REPLAYED_PERPS: ReadonlyMap<string, DerivedPerp> = new Map(
  RECORDED_PERPS.map((p) => [`${p.venue}:${p.symbol}`, { indexed: p.index !== undefined }]),
);

export interface DerivedPerp {
  /** A spot index of the perp was recorded: its mark is index + premium, its funding estimated. */
  indexed: boolean;
}
