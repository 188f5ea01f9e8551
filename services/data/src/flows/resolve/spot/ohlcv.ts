import { ok } from '@meridian/contracts';
import { newestBarBefore, oldestBar, type NativeTable } from '../../../db/repositories/candles.js';
import type { DataDeps } from '../../../deps.js';
import { confidence } from '../../../domain/confidence.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { INTERVAL_MS, partialMark, type Coverage, type Interval } from '../../../domain/series/bar.js';
import { PAGE_SIZE } from '../../../domain/series/shape.js';
import { RATE_LOOKBACK_MS } from '../../../domain/spot/combine.js';
import { baseOf, type Market } from '../../../domain/spot/market.js';
import { REFERENCE_POLICY } from '../../../domain/spot/reference-price.js';
import { pageBars } from './ohlcv-bars.js';
import { select } from './spot-select.js';

const OHLCV_COLUMNS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'trade_count'];
/** A roll-up bar the stored data covers only in part says so (absent on a bar covered whole). */
const PARTIAL_COLUMNS = ['partial', 'covered_from', 'covered_to'];

export const ohlcvResolver: MetricResolver<DataDeps> = async (deps, q) => {
  const interval = (q.interval ?? '1m') as Interval;
  const sel = await select(deps, q);
  if (!sel.ok) return sel;
  const ms = INTERVAL_MS[interval];
  const native: NativeTable = interval === '1s' ? 'candles_1s' : 'candles_1m';
  const rolledUp = ms > INTERVAL_MS['1m'];
  const columns = rolledUp ? [...OHLCV_COLUMNS, ...PARTIAL_COLUMNS] : OHLCV_COLUMNS;
  const before = typeof q.cursor?.before === 'number' ? q.cursor.before : q.now.getTime() + 1;
  const newest = await newestBarBefore(deps.db, native, sel.value.markets, new Date(before));
  const method =
    (sel.value.combined
      ? `Combined bars of every ${baseOf(sel.value.symbol)} market: per ${interval === '1s' ? '1s' : '1m'} bar time, each market's bar converted to USD at the quote rate of that same bar time (BASE-USD close over BASE-QUOTE close on a venue listing both, both traded, median over venues; the last such rate up to ${RATE_LOOKBACK_MS / 60_000} min old otherwise; a bar with none is left out), median OHLC across markets, volumes summed`
      : `Bars of ${q.source} ${sel.value.symbol} in ${sel.value.symbol.split('-')[1]}`) +
    `; ${interval === '1s' || interval === '1m' ? `native ${interval} bars` : `rolled up exactly to ${interval} from ${sel.value.combined ? 'these combined' : 'its'} 1m bars (first open, highest high, lowest low, last close; hourly and daily partial aggregates kept as bars arrive), buckets aligned to UTC; a bucket the stored data covers only in part (it begins before the first stored bar, or is in progress past the newest one's close) is marked partial: true with covered_from and covered_to`}; a period with no trade is a gap, not a bar; newest ${PAGE_SIZE} buckets per page, the cursor walks back in time.`;
  if (newest === undefined)
    return ok({
      data: [],
      rows: [],
      next_cursor_state: null,
      as_of: q.now.toISOString(),
      venues: [],
      staleness_ms: 0,
      confidence: 0,
      sources: [],
      method,
      columns,
    });
  const end = Math.min(before, Math.floor(newest / ms) * ms + ms);
  const start = Math.floor(end / ms) * ms - PAGE_SIZE * ms + (end % ms === 0 ? 0 : ms);
  const page = await pageBars(deps, sel.value, interval, new Date(start), new Date(end));
  const older = await newestBarBefore(deps.db, native, sel.value.markets, new Date(start));
  const last = page.bars[page.bars.length - 1];
  // A bucket in progress is only as new as its newest native bar's close (and nothing is newer than now).
  const newestClose = newest + INTERVAL_MS[interval === '1s' ? '1s' : '1m'];
  const asOf = Math.min(last ? last.ts + ms : newestClose, newestClose, q.now.getTime());
  const venues = page.venues;
  const coverage = rolledUp
    ? await coverageOf(deps, sel.value.markets, q.cursor ? undefined : newestClose, q.now.getTime())
    : undefined;
  const ages = { venues: venues.length, dispersion: 0, max_age_ms: Math.max(ms, REFERENCE_POLICY.maxAgeMs) };
  return ok({
    data: null,
    rows: page.bars.map((b) => ({
      ...b,
      ts: new Date(b.ts).toISOString(),
      ...(coverage ? partialMark(b.ts, ms, coverage) : {}),
    })),
    columns,
    next_cursor_state: older === undefined ? null : { before: start },
    resumeBefore: (row) => ({ before: Date.parse(String(row.ts)) }),
    as_of: new Date(asOf).toISOString(),
    venues,
    staleness_ms: Math.max(0, q.now.getTime() - asOf),
    confidence: confidence({ ...ages, staleness_ms: Math.max(0, q.now.getTime() - asOf) }),
    sources: page.sources,
    method,
    excluded: page.excluded,
    // Once the newest bar has closed, nothing of the page but its age moves until a bar arrives.
    ...(newestClose <= q.now.getTime() ? { ageing: { asOf, confidence: ages } } : {}),
  });
};

/**
 * The span the stored 1m bars of the markets cover: from the oldest one's open to the newest one's
 * close (never after now). `newestClose` when the page already read it (a first page); a later page
 * reads the newest bar again, since its own newest bar is only the newest before the cursor.
 */
async function coverageOf(
  deps: DataDeps,
  markets: Market[],
  newestClose: number | undefined,
  now: number,
): Promise<Coverage | undefined> {
  const from = await oldestBar(deps.db, 'candles_1m', markets);
  const newest = newestClose ?? (await newestBarBefore(deps.db, 'candles_1m', markets, new Date(now + 1)));
  if (from === undefined || newest === undefined) return undefined;
  return { from, to: Math.min(newestClose ?? newest + INTERVAL_MS['1m'], now) };
}
