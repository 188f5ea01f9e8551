import { findMetric } from '@meridian/contracts';
import { ok, refuse } from '@meridian/contracts';
import type { DataDeps } from '../../deps.js';
import { loadReferencePrice } from '../../db/repositories/candles.js';
import { replayMarker } from '../../db/repositories/feeds-observations.js';
import { latestChainMarks, latestFunding, latestPerpMarks } from '../../db/repositories/feeds-derivatives.js';
import type { MetricResolver } from '../metric-resolver.js';
import { entityOf, feedAnswer, iso, maxAgeOf, MINUTE, noData, sourceOf } from './answer.js';
import { median } from '../confidence.js';
import { basisPercent, freshMarks, marksInUsd, type FuturesPrint } from './futures.js';
import {
  buildChain,
  impliedVolIndex,
  openInterest,
  putCallOiRatio,
  round,
  type OptionMark,
} from './options.js';

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

function optionsResolver(
  method: string,
  compute: (marks: OptionMark[], asOf: Date, underlying: string) => unknown,
): MetricResolver<DataDeps> {
  return async (deps, query, hit) => {
    const entity = entityOf(query, hit, 'BTC');
    if (!entity.ok) return entity;
    const source = sourceOf(query, hit);
    if (!source.ok) return source;
    const underlying = entity.value!;
    const snap = await chainSnapshot(deps, underlying, query.now);
    if (!snap) return noData(`${underlying} options`);
    const data = compute(snap.marks, snap.asOf, underlying);
    if (data === undefined)
      return refuse(
        'not_found',
        `the ${underlying} chain has no pair of expiries to interpolate 30 days from`,
      );
    return ok(
      await feedAnswer(deps, {
        data,
        now: query.now,
        asOf: snap.asOf,
        sources: [{ venue: 'deribit', ts: iso(snap.asOf), symbol: `${underlying} options` }],
        method: `${method} Snapshot: the newest mark of each of ${snap.marks.length} live instruments within ${CHAIN_SNAPSHOT_SPAN_MS / 1000} s (three polls) of the newest.`,
        hit,
        replay: { source: 'deribit', file: OPTIONS_FILE },
      }),
    );
  };
}

export const optionsResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/options/chain': optionsResolver(
    'Deribit option marks: mark_price_usd = mark price in the underlying x the expiry forward (underlying_price); mark_iv as a fraction; greeks as Deribit computes them (delta per underlying unit, gamma per USD, vega and theta in USD per contract). underlying_px is the forward of the nearest expiry.',
    (marks, _asOf, underlying) => buildChain(underlying, marks),
  ),
  'crypto/options/implied_vol_index': optionsResolver(
    'VIX-style 30-day implied volatility: for the two expiries bracketing 30 days, the CBOE model-free variance 2/T x sum(dK/K^2 x Q(K)) - 1/T x (F/K0 - 1)^2 over out-of-the-money mark prices in USD (F the expiry forward, K0 the strike at or below F, rate 0); the two variances interpolated linearly in total variance to 30 days, annualised, square root, in percent. Inputs per expiry are in the answer.',
    (marks, asOf) => {
      const index = impliedVolIndex(marks, asOf);
      return index && { ...index, unit: 'percent' };
    },
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

/**
 * The catalogue's max age of crypto/futures (three polls): a venue whose newest mark (or funding rate)
 * is older stopped publishing for us. One number for the limit and the confidence.
 */
export const MARK_MAX_AGE_MS = maxAgeOf(findMetric('crypto', 'futures', 'mark_price')!);
const FUTURES_FILES: Record<string, string> = { deribit: 'BTC-PERPETUAL', binance_futures: 'premium_index' };
/** A replayed sample lands at its recording's replay marker (the same shifted clock). */
const REPLAY_MARK_SPREAD_MS = 5 * MINUTE;

/**
 * The prints (marks or funding rates) young enough to use; the stale ones named. A print older than
 * MARK_MAX_AGE_MS is kept only when it is the replayed recording.
 */
async function usablePrints<P extends FuturesPrint>(
  deps: DataDeps,
  prints: P[],
  source: string | undefined,
  now: Date,
  what: string,
) {
  const all = prints.filter((m) => !source || m.venue === source);
  const replayed = new Set<string>();
  for (const m of all) {
    if (now.getTime() - m.ts.getTime() <= MARK_MAX_AGE_MS || !FUTURES_FILES[m.venue]) continue;
    const marker = await replayMarker(deps.db, m.venue, FUTURES_FILES[m.venue]!, now);
    if (marker && Math.abs(marker.ts.getTime() - m.ts.getTime()) <= REPLAY_MARK_SPREAD_MS)
      replayed.add(`${m.venue}:${m.symbol}`);
  }
  return {
    all,
    ...freshMarks(all, now.getTime(), MARK_MAX_AGE_MS, (m) => replayed.has(`${m.venue}:${m.symbol}`), what),
  };
}

/** The newest mark of every perp of `base` (of `source` when given) young enough to price with. */
async function usableMarks(deps: DataDeps, base: string, source: string | undefined, now: Date) {
  return usablePrints(deps, await latestPerpMarks(deps.db, base, now), source, now, 'mark');
}

function futuresEntity(
  query: Parameters<MetricResolver<DataDeps>>[1],
  hit: Parameters<MetricResolver<DataDeps>>[2],
) {
  const entity = entityOf(query, hit, hit.product.entities[0]);
  if (!entity.ok) return entity;
  const source = sourceOf(query, hit);
  if (!source.ok) return source;
  return ok({ entity: entity.value!, base: entity.value!.split('-')[0]!, source: source.value });
}

const replayOf = (venues: string[]) =>
  [...new Set(venues)].map((venue) => ({ source: venue, file: FUTURES_FILES[venue] ?? '' }));

/** Quote rates measured by the spot side (USD per unit of USDT, USDC...): the basis never assumes 1.0. */
async function spotReference(deps: DataDeps, entity: string, now: Date) {
  const ref = await loadReferencePrice(deps.db, entity, now);
  const rates = new Map<string, number>((ref?.quote_rates ?? []).map((r) => [r.quote, r.rate]));
  return { ref, rates };
}

/**
 * The usable perp marks of an entity in USD (stale and unconvertible ones named), with the spot
 * reference they were converted by. `needsReference`: refuse before converting when spot has none.
 */
async function usdMarks(
  deps: DataDeps,
  target: { base: string; entity: string; source: string | undefined },
  now: Date,
  needsReference: boolean,
) {
  const { base, entity, source } = target;
  const marks = await usableMarks(deps, base, source, now);
  if (marks.all.length === 0) return noData(`${entity} mark price`);
  const { ref, rates } = await spotReference(deps, entity, now);
  if (needsReference && !ref)
    return refuse('not_found', `no spot reference_price for ${entity} to compute the basis against`);
  const converted = marksInUsd(marks.kept, rates);
  const excluded = [...marks.excluded, ...converted.excluded];
  if (converted.kept.length === 0)
    return refuse(
      'not_found',
      `no ${entity} mark price usable: ${excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  return ok({ kept: converted.kept, excluded, ref });
}

const fundingResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const parsed = futuresEntity(query, hit);
  if (!parsed.ok) return parsed;
  const { base, entity, source } = parsed.value;
  const funding = await usablePrints(
    deps,
    await latestFunding(deps.db, base, query.now),
    source,
    query.now,
    'funding rate',
  );
  if (funding.all.length === 0) return noData(`${entity} funding`);
  const { kept, excluded } = funding;
  if (kept.length === 0)
    return refuse(
      'not_found',
      `no ${entity} funding rate usable: ${excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  const asOf = new Date(Math.max(...kept.map((f) => f.ts.getTime())));
  const venues = kept.map((f) => ({
    venue: f.venue,
    symbol: f.symbol,
    funding_rate: f.funding_rate,
    interval_hours: f.interval_hours,
    ts: iso(f.ts),
  }));
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        funding_rate: round(median(kept.map((f) => f.funding_rate)), 10),
        unit: 'rate',
        interval_hours: 8,
        venues,
      },
      now: query.now,
      asOf,
      sources: kept.map((f) => ({ venue: f.venue, ts: iso(f.ts), symbol: f.symbol })),
      method: `Perpetual funding rate per 8-hour interval as each venue publishes it (Binance lastFundingRate, Deribit funding_8h); funding_rate is the median across the venues kept. A venue whose newest rate is older than ${MARK_MAX_AGE_MS / MINUTE} min (3 polling cycles) is excluded as stale, unless it is the replayed recording.`,
      hit,
      replay: replayOf(kept.map((f) => f.venue)),
      excluded,
      dispersion: 0,
    }),
  );
};

const markPriceResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const parsed = futuresEntity(query, hit);
  if (!parsed.ok) return parsed;
  const { entity } = parsed.value;
  const usd = await usdMarks(deps, parsed.value, query.now, false);
  if (!usd.ok) return usd;
  const { kept, excluded } = usd.value;
  const asOf = new Date(Math.max(...kept.map((m) => m.ts.getTime())));
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        mark_price: round(median(kept.map((m) => m.mark_price_usd)), 4),
        unit: 'USD',
        venues: kept.map((m) => ({
          venue: m.venue,
          symbol: m.symbol,
          mark_price: m.mark_price,
          quote: m.quote,
          mark_price_usd: m.mark_price_usd,
          index_price: m.index_price,
          ts: iso(m.ts),
        })),
      },
      now: query.now,
      asOf,
      sources: kept.map((m) => ({ venue: m.venue, ts: iso(m.ts), symbol: m.symbol })),
      method: `Perpetual mark price per venue, converted to USD with the spot side's measured rate of the quote currency (USDT or USDC never assumed 1.0); mark_price is the median of the venues kept. A venue whose newest mark is older than ${MARK_MAX_AGE_MS / MINUTE} min (3 polling cycles) is excluded as stale, unless it is the replayed recording.`,
      hit,
      replay: replayOf(kept.map((m) => m.venue)),
      excluded,
    }),
  );
};

const basisResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const parsed = futuresEntity(query, hit);
  if (!parsed.ok) return parsed;
  const { entity } = parsed.value;
  const usd = await usdMarks(deps, parsed.value, query.now, true);
  if (!usd.ok) return usd;
  const { kept, excluded } = usd.value;
  const ref = usd.value.ref!; // usdMarks refused already when there is none
  const mark = median(kept.map((m) => m.mark_price_usd));
  const markAsOf = Math.max(...kept.map((m) => m.ts.getTime()));
  const asOf = new Date(Math.min(markAsOf, ref.as_of));
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        basis: basisPercent(mark, ref.price),
        unit: 'percent',
        mark_price: round(mark, 4),
        reference_price: ref.price,
        venues: kept.map((m) => ({
          venue: m.venue,
          symbol: m.symbol,
          mark_price_usd: m.mark_price_usd,
          basis: basisPercent(m.mark_price_usd, ref.price),
        })),
      },
      now: query.now,
      asOf,
      sources: [
        ...kept.map((m) => ({ venue: m.venue, ts: iso(m.ts), symbol: m.symbol })),
        ...ref.venues.map((v) => ({ venue: v.venue, ts: v.ts, symbol: v.symbol })),
      ],
      method: `basis = (perp mark_price - cross-venue spot reference_price) / reference_price x 100; mark_price is the median USD mark of the perpetuals kept (marks older than ${MARK_MAX_AGE_MS / MINUTE} min excluded as stale unless replayed), reference_price the spot metric crypto/spot/reference_price at the same time. as_of is the older of the two.`,
      hit,
      replay: replayOf(kept.map((m) => m.venue)),
      excluded: [
        ...excluded,
        ...ref.excluded.map((e) => ({ venue: e.venue, reason: `spot ${e.symbol}: ${e.reason}` })),
      ],
    }),
  );
};

export const futuresResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/futures/funding': fundingResolver,
  'crypto/futures/mark_price': markPriceResolver,
  'crypto/futures/basis': basisResolver,
};
