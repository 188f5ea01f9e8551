import { findMetric, ok, refuse } from '@meridian/contracts';
import { loadReferencePrice } from '../../../db/repositories/candles.js';
import { latestPerpMarks } from '../../../db/repositories/feeds-derivatives.js';
import type { DataDeps } from '../../../deps.js';
import { freshMarks, marksInUsd, type FuturesPrint } from '../../../domain/derivatives/futures.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { entityOf, maxAgeOf, noData, sourceOf } from '../feed-answer.js';

/**
 * The catalogue's max age of crypto/futures (three polls): a venue whose newest mark (or funding rate)
 * is older stopped publishing for us. One number for the limit and the confidence.
 */
export const MARK_MAX_AGE_MS = maxAgeOf(findMetric('crypto', 'futures', 'mark_price')!);

/** The prints (marks, funding rates, trade bars) of `source` (every venue when none) young enough to use; the stale ones named. */
export function usablePrints<P extends FuturesPrint>(
  prints: P[],
  source: string | undefined,
  now: Date,
  what: string,
) {
  const all = prints.filter((m) => !source || m.venue === source);
  return { all, ...freshMarks(all, now.getTime(), MARK_MAX_AGE_MS, what) };
}

/**
 * Until when (exclusive) the prints kept stay usable with no new row: the first instant the oldest kept
 * one turns stale; `now` when one is excluded already, since its reason says its age.
 */
export function freshUntil(usable: { kept: FuturesPrint[]; excluded: unknown[] }, now: Date): number {
  if (usable.excluded.length > 0) return now.getTime();
  return Math.min(...usable.kept.map((p) => p.ts.getTime())) + MARK_MAX_AGE_MS + 1;
}

/** The newest mark of every perp of `base` (of `source` when given) young enough to price with. */
async function usableMarks(deps: DataDeps, base: string, source: string | undefined, now: Date) {
  return usablePrints(await latestPerpMarks(deps.db, base, now), source, now, 'mark');
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

/** The base whose spot books measure a quote currency's USD rate where a base has no spot reference. */
const RATE_BASE = 'BTC-USD';
export const QUOTE_RATE_WORDS = `the quote currency's USD rate measured by the spot side on the base's own books, or on ${RATE_BASE}'s where the base has no spot reference (USDT or USDC never assumed 1.0)`;

/**
 * The spot reference of an entity (undefined when spot has none) and the quote rates measured by the
 * spot side (USD per unit of USDT, USDC...): a quote's rate is the same whatever base it is measured
 * on, so a base without spot books is converted with BTC-USD's.
 */
export async function spotReference(deps: DataDeps, entity: string, now: Date) {
  const ref = await loadReferencePrice(deps.db, entity, now);
  const rated = ref ?? (entity === RATE_BASE ? undefined : await loadReferencePrice(deps.db, RATE_BASE, now));
  const rates = new Map<string, number>((rated?.quote_rates ?? []).map((r) => [r.quote, r.rate]));
  return { ref, rates };
}

/** Under replay: the perps of `base` are played without a recorded spot market of their base. */
export function unrecordedSpot(deps: DataDeps, base: string): boolean {
  const perps = [...deps.derivedPerps].filter(([key]) => key.split(':')[1]!.startsWith(`${base}-`));
  return perps.length > 0 && perps.every(([, p]) => !p.indexed);
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
    return refuse(
      'not_found',
      `no spot reference_price for ${entity} to compute the basis against${unrecordedSpot(deps, base) ? `: the replay holds no ${base} spot recording` : ''}`,
    );
  const converted = marksInUsd(marks.kept, rates);
  const excluded = [...marks.excluded, ...converted.excluded];
  if (converted.kept.length === 0)
    return refuse(
      'not_found',
      `no ${entity} mark price usable: ${excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  return ok({ kept: converted.kept, excluded, ref });
}
