import { ok, refuse } from '@meridian/contracts';
import { latestPerKey, type StoredObservation } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import { median } from '../../../domain/confidence.js';
import { PERP_BAR_METRIC } from '../../../domain/feeds/observation-keys.js';
import { pricesInUsd } from '../../../domain/derivatives/futures.js';
import { round } from '../../../domain/derivatives/options.js';
import { takerFlow, type TakerMinute } from '../../../domain/derivatives/perp-derivations.js';
import type { MetricQuery, MetricResolver } from '../../../domain/metric-resolver.js';
import { feedAnswer, iso, MINUTE, noData } from '../feed-answer.js';
import {
  futuresEntity,
  MARK_MAX_AGE_MS,
  QUOTE_RATE_WORDS,
  spotReference,
  usablePrints,
} from './futures-marks.js';

/** A perp's newest stored 1m trade bar (observations PERP_BAR_METRIC, keyed by its symbol). */
interface PerpBarPrint extends TakerMinute {
  venue: string;
  symbol: string;
  /** The bar's close time. */
  ts: Date;
  close: number;
  trade_count: number | null;
}

const barOf = (o: StoredObservation): PerpBarPrint => {
  const p = o.payload as Partial<TakerMinute & { trade_count: number }>;
  return {
    venue: o.source,
    symbol: o.key,
    ts: o.ts,
    close: o.value ?? NaN,
    volume: p.volume ?? NaN,
    quote_volume: p.quote_volume ?? NaN,
    taker_buy_volume: p.taker_buy_volume ?? NaN,
    taker_buy_quote_volume: p.taker_buy_quote_volume ?? NaN,
    trade_count: p.trade_count ?? null,
  };
};

const STALE_WORDS = `A venue whose newest bar closed more than ${MARK_MAX_AGE_MS / MINUTE} min ago is excluded as stale.`;

/** The newest usable trade bar of every perp of the entity's base, or the refusal. */
async function newestBars(deps: DataDeps, query: MetricQuery, hit: Parameters<MetricResolver<DataDeps>>[2]) {
  const parsed = futuresEntity(query, hit);
  if (!parsed.ok) return parsed;
  const { base, entity, source } = parsed.value;
  const stored = await latestPerKey(deps.db, PERP_BAR_METRIC, query.now, `${base}-`);
  const bars = usablePrints(stored.map(barOf), source, query.now, '1m trade bar');
  if (bars.all.length === 0) return noData(`${entity} perpetual trade bars`);
  if (bars.kept.length === 0)
    return refuse(
      'not_found',
      `no ${entity} perpetual trade bar usable: ${bars.excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  return ok({ entity, kept: bars.kept, excluded: bars.excluded });
}

const sourcesOf = (bars: PerpBarPrint[]) =>
  bars.map((b) => ({ venue: b.venue, ts: iso(b.ts), symbol: b.symbol }));
const newestOf = (bars: PerpBarPrint[]) => new Date(Math.max(...bars.map((b) => b.ts.getTime())));

const lastPriceResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const bars = await newestBars(deps, query, hit);
  if (!bars.ok) return bars;
  const { entity, kept: all } = bars.value;
  const { rates } = await spotReference(deps, entity, query.now);
  const converted = pricesInUsd(all, (b) => b.close, rates, 'price');
  const priced = converted.kept;
  const excluded = [...bars.value.excluded, ...converted.excluded];
  if (priced.length === 0)
    return refuse(
      'not_found',
      `no ${entity} last price usable: ${excluded.map((e) => `${e.venue}: ${e.reason}`).join('; ')}`,
    );
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        last_price: round(median(priced.map((b) => b.usd)), 4),
        unit: 'USD',
        venues: priced.map((b) => ({
          venue: b.venue,
          symbol: b.symbol,
          last_price: b.close,
          quote: b.quote,
          last_price_usd: b.usd,
          ts: iso(b.ts),
        })),
      },
      now: query.now,
      // Rests on the spot side's quote rates as well, which age on their own: never kept.
      validUntil: query.now.getTime(),
      asOf: newestOf(priced),
      sources: sourcesOf(priced),
      method: `Last traded price of each perpetual: the close of its newest 1m trade bar, dated at the bar's close, converted to USD with ${QUOTE_RATE_WORDS}; last_price is the median of the venues kept. ${STALE_WORDS}`,
      hit,
      excluded,
    }),
  );
};

const takerFlowResolver: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const bars = await newestBars(deps, query, hit);
  if (!bars.ok) return bars;
  const { entity, kept, excluded } = bars.value;
  const venues = kept.map((b) => ({
    venue: b.venue,
    symbol: b.symbol,
    ...takerFlow(b),
    volume: b.volume,
    quote_volume: b.quote_volume,
    trade_count: b.trade_count,
    ts: iso(b.ts),
  }));
  const sum = (f: (v: (typeof venues)[number]) => number) =>
    round(
      venues.reduce((s, v) => s + f(v), 0),
      8,
    );
  const total = takerFlow({
    volume: sum((v) => v.volume),
    quote_volume: sum((v) => v.quote_volume),
    taker_buy_volume: sum((v) => v.buy_volume),
    taker_buy_quote_volume: sum((v) => v.buy_quote_volume),
  });
  return ok(
    await feedAnswer(deps, {
      data: {
        symbol: entity,
        unit: 'base asset',
        base_asset: entity.split('-')[0],
        interval: '1m',
        ...total,
        venues,
      },
      now: query.now,
      // Rests on the spot side's quote rates as well, which age on their own: never kept.
      validUntil: query.now.getTime(),
      asOf: newestOf(kept),
      sources: sourcesOf(kept),
      method: `Taker side of each perpetual's newest 1m trade bar: buy_volume is the volume takers bought (the venue's taker-buy volume), sell_volume the rest of the bar's volume (every trade has one taker); buy_share = buy_volume / volume, buy_sell_ratio = buy_volume / sell_volume (null when nothing was taker-sold); the same in quote units. The top-level figures sum the venues kept. ${STALE_WORDS}`,
      hit,
      excluded,
    }),
  );
};

export const futuresTradeResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/futures/last_price': lastPriceResolver,
  'crypto/futures/taker_flow': takerFlowResolver,
};
