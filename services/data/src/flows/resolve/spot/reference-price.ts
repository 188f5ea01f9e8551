import { ok, refuse } from '@meridian/contracts';
import { referenceQuotes } from '../../../db/repositories/candles.js';
import type { DataDeps, PriceCache } from '../../../deps.js';
import { minuteEnd } from '../../../domain/answer-ageing.js';
import { confidence } from '../../../domain/confidence.js';
import type { MetricAnswer, MetricResolver } from '../../../domain/metric-resolver.js';
import { baseOf, ENTITY_PATTERN } from '../../../domain/spot/market.js';
import {
  REFERENCE_POLICY,
  referencePrice,
  type ReferencePrice,
} from '../../../domain/spot/reference-price.js';
import type { Ingestor } from '../../ingestor.js';

/**
 * The reference price is cached per (entity, source) until the first of: any candle batch is
 * ingested in this process, a kept quote turns stale, the minute's end (a market left out turns
 * stale on minutes too, which changes its reason), or one second (the bound for replicas that
 * did not see the ingest; DATA_PRICE_CACHE_MS).
 */
export function createPriceCache(ingestor: Ingestor): PriceCache {
  const cache: PriceCache = new Map();
  ingestor.onChange((batch) => {
    if (batch.kind === 'candles') cache.clear();
  });
  return cache;
}

async function computePrice(deps: DataDeps, entity: string, source: string | undefined, now: number) {
  const quotes = await referenceQuotes(deps.db, baseOf(entity), new Date(now));
  // Quote rates come from every venue; `source` only narrows the prints that are priced.
  return referencePrice(entity, quotes, now, source === undefined ? undefined : (q) => q.venue === source);
}

/** USD prints after a quote conversion carry float noise; a millionth of a dollar is below any tick. */
function toMicroUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

export const referencePriceResolver: MetricResolver<DataDeps> = async (deps, q) => {
  const entity = q.entity ?? 'BTC-USD';
  if (!ENTITY_PATTERN.test(entity))
    return refuse('validation_failed', `entity: reference_price is in USD; ask for BASE-USD such as BTC-USD`);
  const now = q.now.getTime();
  const cache = deps.prices;
  const key = `${entity}|${q.source ?? ''}`;
  let hit = cache.get(key);
  if (!hit || hit.until <= now || now < (hit.value?.as_of ?? 0)) {
    const value = await computePrice(deps, entity, q.source, now);
    hit = {
      value,
      until: Math.min(now + deps.config.DATA_PRICE_CACHE_MS, value?.valid_until ?? Infinity, minuteEnd(now)),
      answer: value && priceAnswer(entity, value),
    };
    cache.set(key, hit);
  }
  const { value: price, answer } = hit;
  if (!price || !answer)
    return refuse('not_found', `no fresh quote for ${entity}${q.source ? ` on ${q.source}` : ''}`);
  const staleness = now - price.as_of;
  const ages = {
    venues: answer.venues.length,
    dispersion: price.dispersion,
    max_age_ms: REFERENCE_POLICY.maxAgeMs,
  };
  return ok({
    ...answer,
    staleness_ms: staleness,
    confidence: confidence({ ...ages, staleness_ms: staleness }),
    ageing: { asOf: price.as_of, confidence: ages, validUntil: price.valid_until },
  });
};

/** Everything of a reference-price answer that does not age; shared by every hit of the cache, never mutated. */
function priceAnswer(
  entity: string,
  price: ReferencePrice,
): Omit<MetricAnswer, 'staleness_ms' | 'confidence'> {
  return {
    data: {
      symbol: price.symbol,
      price: toMicroUsd(price.price),
      venues: price.venues.map((v) => ({ venue: v.venue, symbol: v.symbol, price: toMicroUsd(v.price) })),
      quote_rates: price.quote_rates.map((r) => ({
        quote: r.quote,
        usd_per_unit: r.rate,
        derived_from: r.from,
      })),
    },
    as_of: new Date(price.as_of).toISOString(),
    venues: [...new Set(price.venues.map((v) => v.venue))],
    sources: price.venues.map((v) => ({ venue: v.venue, symbol: v.symbol, ts: v.ts })),
    method:
      `Newest 1m (or 1s) close of every ${baseOf(entity)} market; markets older than ${REFERENCE_POLICY.maxAgeMs / 60_000} min dropped; ` +
      `non-USD quotes converted at a USD rate derived from the same data (a QUOTE-USD market, else BASE-USD over BASE-QUOTE on one venue, median over the other venues); ` +
      `each venue one vote (its markets' price weighted by their base volume of the last ${REFERENCE_POLICY.weightWindowMs / 60_000} min, volumes summed); ` +
      `venues beyond max(${REFERENCE_POLICY.madK} x 1.4826 x MAD, ${REFERENCE_POLICY.floor * 100} %) of the median trimmed; ` +
      `then the median of the votes weighted by volume.`,
    excluded: price.excluded.map((e) => ({ venue: e.venue, symbol: e.symbol, reason: e.reason })),
  };
}
