import { findMetric, ok, refuse } from '@meridian/contracts';
import { loadReferencePrice } from '../../db/repositories/candles.js';
import { latestPerpMarks } from '../../db/repositories/feeds-derivatives.js';
import { replayMarker } from '../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../deps.js';
import { freshMarks, marksInUsd, type FuturesPrint } from '../../domain/feeds/futures.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { entityOf, maxAgeOf, MINUTE, noData, sourceOf } from './feed-answer.js';

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
export async function usablePrints<P extends FuturesPrint>(
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

export function futuresEntity(
  query: Parameters<MetricResolver<DataDeps>>[1],
  hit: Parameters<MetricResolver<DataDeps>>[2],
) {
  const entity = entityOf(query, hit, hit.product.entities[0]);
  if (!entity.ok) return entity;
  const source = sourceOf(query, hit);
  if (!source.ok) return source;
  return ok({ entity: entity.value!, base: entity.value!.split('-')[0]!, source: source.value });
}

export const replayOf = (venues: string[]) =>
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
export async function usdMarks(
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
