import { ok, refuse } from '@meridian/contracts';
import { latestFunding } from '../../db/repositories/feeds-derivatives.js';
import type { DataDeps } from '../../deps.js';
import { median } from '../../domain/confidence.js';
import { basisPercent } from '../../domain/feeds/futures.js';
import { round } from '../../domain/feeds/options.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { feedAnswer, iso, MINUTE, noData } from './feed-answer.js';
import { futuresEntity, MARK_MAX_AGE_MS, replayOf, usablePrints, usdMarks } from './futures-marks.js';

/** A funding rate over 8 hours: a venue funding every 4 h pays twice in that time. */
const per8Hours = (f: { funding_rate: number; interval_hours: number | null }) =>
  round((f.funding_rate * 8) / (f.interval_hours ?? 8), 10);

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
    funding_rate_8h: per8Hours(f),
    ts: iso(f.ts),
  }));
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        funding_rate: round(median(venues.map((v) => v.funding_rate_8h)), 10),
        unit: 'rate',
        interval_hours: 8,
        venues,
      },
      now: query.now,
      asOf,
      sources: kept.map((f) => ({ venue: f.venue, ts: iso(f.ts), symbol: f.symbol })),
      method: `Perpetual funding rate per 8-hour interval: each venue's rate as it publishes it (Binance lastFundingRate, Bybit fundingRate, OKX fundingRate, Deribit funding_8h), scaled to 8 hours when the venue funds at another interval (funding_rate_8h = rate x 8 / interval_hours; a venue that does not say its interval is taken as 8 h); funding_rate is the median of funding_rate_8h across the venues kept. A venue whose newest rate is older than ${MARK_MAX_AGE_MS / MINUTE} min (3 polling cycles) is excluded as stale, unless it is the replayed recording.`,
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
