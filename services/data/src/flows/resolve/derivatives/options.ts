import { findMetric, ok, refuse, type Result } from '@meridian/contracts';
import { latestChainMarks } from '../../../db/repositories/feeds-derivatives.js';
import { latestObservation } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import type { MetricQuery, MetricResolver } from '../../../domain/metric-resolver.js';
import {
  buildChain,
  chainUnderlyingPx,
  impliedVolIndex,
  openInterest,
  putCallOiRatio,
  type OptionMark,
} from '../../../domain/derivatives/options.js';
import { entityOf, feedAnswer, iso, maxAgeOf, noData, sourceOf } from '../feed-answer.js';

const OPTIONS_FILE = 'btc_options';
/**
 * The newest snapshot of a chain is every instrument's newest mark within this of the newest mark: the
 * catalogue's max age of crypto/options (three polls), so an instrument no longer listed drops out.
 */
export const CHAIN_SNAPSHOT_SPAN_MS = maxAgeOf(findMetric('crypto', 'options', 'chain')!);

export async function chainSnapshot(deps: DataDeps, underlying: string, now: Date) {
  const marks = await latestChainMarks(deps.db, underlying, now, CHAIN_SNAPSHOT_SPAN_MS);
  if (marks.length === 0) return undefined;
  const asOf = new Date(Math.max(...marks.map((m) => m.ts.getTime())));
  return { marks, asOf };
}

/** The UTC day (YYYY-MM-DD) of an option's expiry: what the chain's `expiry` filter names. */
const expiryDay = (m: OptionMark) => m.expiry.toISOString().slice(0, 10);

/**
 * The chain's `option_type` and `expiry` filters (the route refuses them on the other options
 * metrics). A day on which no option of the snapshot expires is a 404 naming the days that do.
 */
function filterChain(marks: OptionMark[], query: MetricQuery, underlying: string): Result<OptionMark[]> {
  let kept = marks;
  if (query.expiry !== undefined) {
    kept = kept.filter((m) => expiryDay(m) === query.expiry);
    if (kept.length === 0) {
      const days = [...new Set(marks.map(expiryDay))].sort();
      return refuse(
        'not_found',
        `no ${underlying} option of the newest chain expires on ${query.expiry}; expiry days (UTC): ${days.join(', ')}`,
      );
    }
  }
  if (query.option_type !== undefined) kept = kept.filter((m) => m.option_type === query.option_type);
  return ok(kept);
}

function filterNote(query: MetricQuery): string {
  const parts = [
    ...(query.option_type !== undefined ? [`option_type ${query.option_type}`] : []),
    ...(query.expiry !== undefined ? [`expiring on ${query.expiry} (UTC day)`] : []),
  ];
  return parts.length ? ` Filtered: ${parts.join(', ')}.` : '';
}

/**
 * Deribit's own DVOL of the underlying (stored by the live connector as observations `dvol`), when one
 * lies within the snapshot span of the chain's newest mark: null under replay (none recorded) or when
 * the connector stopped reading it.
 */
async function deribitDvol(deps: DataDeps, underlying: string, asOf: Date, now: Date) {
  const dvol = await latestObservation(deps.db, 'dvol', underlying, now);
  if (!dvol || dvol.value === null || Math.abs(asOf.getTime() - dvol.ts.getTime()) > CHAIN_SNAPSHOT_SPAN_MS)
    return null;
  return { value: dvol.value, ts: iso(dvol.ts), unit: 'percent' };
}

type Extra = (deps: DataDeps, underlying: string, asOf: Date, now: Date) => Promise<Record<string, unknown>>;

function optionsResolver(
  method: string,
  compute: (marks: OptionMark[], asOf: Date, underlying: string, snapshot: OptionMark[]) => unknown,
  filtered = false,
  extra?: Extra,
): MetricResolver<DataDeps> {
  return async (deps, query, hit) => {
    const entity = entityOf(query, hit, 'BTC');
    if (!entity.ok) return entity;
    const source = sourceOf(query, hit);
    if (!source.ok) return source;
    const underlying = entity.value!;
    const snap = await chainSnapshot(deps, underlying, query.now);
    if (!snap) return noData(`${underlying} options`);
    const marks = filtered ? filterChain(snap.marks, query, underlying) : ok(snap.marks);
    if (!marks.ok) return marks;
    const computed = compute(marks.value, snap.asOf, underlying, snap.marks);
    if (computed === undefined)
      return refuse(
        'not_found',
        `the ${underlying} chain has no pair of expiries to interpolate 30 days from`,
      );
    const data = extra ? { ...computed, ...(await extra(deps, underlying, snap.asOf, query.now)) } : computed;
    return ok(
      await feedAnswer(deps, {
        data,
        now: query.now,
        asOf: snap.asOf,
        sources: [{ venue: 'deribit', ts: iso(snap.asOf), symbol: `${underlying} options` }],
        method: `${method} Snapshot: the newest mark of each of ${snap.marks.length} live instruments within ${CHAIN_SNAPSHOT_SPAN_MS / 1000} s (three polls) of the newest.${filtered ? filterNote(query) : ''}`,
        hit,
        replay: { source: 'deribit', file: OPTIONS_FILE },
      }),
    );
  };
}

export const optionsResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/options/chain': optionsResolver(
    "Deribit option marks (option_type= keeps calls or puts, expiry=YYYY-MM-DD the options expiring on that UTC day): mark_price_usd = mark price in the underlying x the expiry forward (underlying_price); mark_iv as a fraction; greeks as Deribit computes them (delta per underlying unit, gamma per USD, vega and theta in USD per contract; live, each from its instrument's ticker, read in rotation, so up to about one rotation older than the mark, null until first read). underlying_px is the forward of the nearest expiry.",
    // underlying_px stays the whole chain's (the nearest expiry's forward) whatever the filters keep.
    (marks, _asOf, underlying, snapshot) => ({
      ...buildChain(underlying, marks),
      underlying_px: chainUnderlyingPx(snapshot),
    }),
    true,
  ),
  'crypto/options/implied_vol_index': optionsResolver(
    "VIX-style 30-day implied volatility: for the two expiries bracketing 30 days, the CBOE model-free variance 2/T x sum(dK/K^2 x Q(K)) - 1/T x (F/K0 - 1)^2 over out-of-the-money mark prices in USD (F the expiry forward, K0 the strike at or below F, rate 0); the two variances interpolated linearly in total variance to 30 days, annualised, square root, in percent. Inputs per expiry are in the answer. value is our computation from the stored chain; deribit_dvol is Deribit's own published DVOL (the same model-free 30-day method on its whole book, public/get_volatility_index_data, the close of its newest 1-minute candle) given beside it as a cross-check, not blended in; null when none was read within the snapshot span (under replay none is recorded).",
    (marks, asOf) => {
      const index = impliedVolIndex(marks, asOf);
      return index && { ...index, unit: 'percent' };
    },
    false,
    async (deps, underlying, asOf, now) => ({ deribit_dvol: await deribitDvol(deps, underlying, asOf, now) }),
  ),
  'crypto/options/put_call_oi_ratio': optionsResolver(
    'Sum of put open interest over sum of call open interest across every live expiry, contracts of 1 underlying unit.',
    (marks) => {
      const oi = openInterest(marks);
      return { ratio: putCallOiRatio(oi), puts: oi.puts, calls: oi.calls, unit: 'ratio' };
    },
  ),
  'crypto/options/open_interest': optionsResolver(
    'Sum of open interest of every live option, in contracts of 1 underlying unit, split by calls, puts and expiry; notional = contracts x the expiry forward.',
    (marks) => ({ ...openInterest(marks), unit: 'contracts' }),
  ),
};
