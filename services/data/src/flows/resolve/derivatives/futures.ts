import { ok, refuse } from '@meridian/contracts';
import { latestFunding } from '../../../db/repositories/feeds-derivatives.js';
import type { DataDeps } from '../../../deps.js';
import { median } from '../../../domain/confidence.js';
import { basisPercent } from '../../../domain/derivatives/futures.js';
import { MARK_WINDOW_MINUTES } from '../../../domain/derivatives/perp-derivations.js';
import { round } from '../../../domain/derivatives/options.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { feedAnswer, iso, MINUTE, noData } from '../feed-answer.js';
import {
  freshUntil,
  futuresEntity,
  MARK_MAX_AGE_MS,
  QUOTE_RATE_WORDS,
  unrecordedSpot,
  usablePrints,
  usdMarks,
} from './futures-marks.js';
import { futuresTradeResolvers } from './futures-trades.js';

/** A funding rate over 8 hours: a venue funding every 4 h pays twice in that time. */
const per8Hours = (f: { funding_rate: number; interval_hours: number | null }) =>
  round((f.funding_rate * 8) / (f.interval_hours ?? 8), 10);

const fundingResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const parsed = futuresEntity(query, hit);
  if (!parsed.ok) return parsed;
  const { base, entity, source } = parsed.value;
  const funding = usablePrints(
    await latestFunding(deps.db, base, query.now),
    source,
    query.now,
    'funding rate',
  );
  if (funding.all.length === 0) return noFunding(deps, entity);
  const { kept, excluded } = funding;
  if (kept.length === 0)
    return refuse(
      'not_found',
      `no ${entity} funding rate usable: ${excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  const asOf = new Date(Math.max(...kept.map((f) => f.ts.getTime())));
  const estimated = (f: { venue: string; symbol: string }) => deps.derivedPerps.has(`${f.venue}:${f.symbol}`);
  const venues = kept.map((f) => ({
    venue: f.venue,
    symbol: f.symbol,
    funding_rate: f.funding_rate,
    interval_hours: f.interval_hours,
    funding_rate_8h: per8Hours(f),
    estimated: estimated(f),
    ts: iso(f.ts),
  }));
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        funding_rate: round(median(venues.map((v) => v.funding_rate_8h)), 10),
        unit: 'rate',
        interval_hours: 8,
        estimated: venues.some((v) => v.estimated),
        venues,
      },
      now: query.now,
      validUntil: freshUntil(funding, query.now),
      asOf,
      sources: kept.map((f) => ({ venue: f.venue, ts: iso(f.ts), symbol: f.symbol })),
      method: `Perpetual funding rate per 8-hour interval: each venue's rate as it publishes it (Binance lastFundingRate, Bybit fundingRate, OKX fundingRate, Deribit funding_8h), scaled to 8 hours when the venue funds at another interval (funding_rate_8h = rate x 8 / interval_hours; a venue that does not say its interval is taken as 8 h); funding_rate is the median of funding_rate_8h across the venues kept. A venue whose newest rate is older than ${MARK_MAX_AGE_MS / MINUTE} min (3 polling cycles) is excluded as stale.${kept.some(estimated) ? ` ${FUNDING_ESTIMATE_WORDS}` : ''}`,
      hit,
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
      // Rests on the spot reference and quote rates as well, which age on their own: never kept.
      validUntil: query.now.getTime(),
      asOf,
      sources: kept.map((m) => ({ venue: m.venue, ts: iso(m.ts), symbol: m.symbol })),
      method: `Perpetual mark price per venue, converted to USD with ${QUOTE_RATE_WORDS}; mark_price is the median of the venues kept. A venue whose newest mark is older than ${MARK_MAX_AGE_MS / MINUTE} min (3 polling cycles) is excluded as stale.${derivedWords(deps, kept)}`,
      hit,
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
      // Rests on the spot reference and quote rates as well, which age on their own: never kept.
      validUntil: query.now.getTime(),
      asOf,
      sources: [
        ...kept.map((m) => ({ venue: m.venue, ts: iso(m.ts), symbol: m.symbol })),
        ...ref.venues.map((v) => ({ venue: v.venue, ts: v.ts, symbol: v.symbol })),
      ],
      method: `basis = (perp mark_price - cross-venue spot reference_price) / reference_price x 100, not annualised; mark_price is the median USD mark of the perpetuals kept (marks older than ${MARK_MAX_AGE_MS / MINUTE} min excluded as stale), reference_price the spot metric crypto/spot/reference_price at the same time. as_of is the older of the two.${derivedWords(deps, kept)}`,
      hit,
      excluded: [
        ...excluded,
        ...ref.excluded.map((e) => ({ venue: e.venue, reason: `spot ${e.symbol}: ${e.reason}` })),
      ],
    }),
  );
};

const FUNDING_ESTIMATE_WORDS =
  "A venue marked estimated published no rate that was recorded: its rate is estimated from the replayed recording by Binance's formula, funding = P + clamp(0.01 % - P, -0.05 %, +0.05 %), P the time-weighted average (weights 1..n) of the minute premium indexes (perp trade close - index) / index of the current 8-hour interval so far, the index being the recorded spot close in the perp's quote (Binance uses impact bid and ask prices, which were not recorded).";

/** What the method adds when a kept mark was derived by the replay (perp-derivations.ts). */
function derivedWords(deps: DataDeps, kept: { venue: string; symbol: string; index_price: number | null }[]) {
  const derived = kept.filter((m) => deps.derivedPerps.has(`${m.venue}:${m.symbol}`));
  if (derived.length === 0) return '';
  const words = derived.map((m) =>
    m.index_price === null
      ? `${m.symbol} (no spot recorded): the mean of the last ${MARK_WINDOW_MINUTES} 1m trade closes`
      : `${m.symbol}: index_price (the recorded spot ${m.symbol} close of the minute) + the mean of (trade close - index) over the last ${MARK_WINDOW_MINUTES} minutes, as Binance's mark adds a moving average of the premium to its index`,
  );
  return ` The recording holds trade bars, not marks: the mark of ${words.join('; ')}.`;
}

/** No funding stored: under replay a perp without a recorded index has no estimate, and says why. */
function noFunding(deps: DataDeps, entity: string) {
  if (unrecordedSpot(deps, entity.split('-')[0]!))
    return refuse(
      'not_found',
      `no ${entity} funding rate: none was recorded, and the estimate from the premium over spot needs a spot recording of ${entity.split('-')[0]}, which the replay does not hold`,
    );
  return noData(`${entity} funding`);
}

export const futuresResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/futures/funding': fundingResolver,
  'crypto/futures/mark_price': markPriceResolver,
  'crypto/futures/basis': basisResolver,
  ...futuresTradeResolvers,
};
