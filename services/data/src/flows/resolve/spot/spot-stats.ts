import { ok, refuse } from '@meridian/contracts';
import { marketBars } from '../../../db/repositories/candles.js';
import type { DataDeps } from '../../../deps.js';
import { confidence, relativeDispersion } from '../../../domain/confidence.js';
import type { MetricAnswer, MetricQuery, MetricResolver } from '../../../domain/metric-resolver.js';
import type { Bar } from '../../../domain/series/bar.js';
import { combineMarkets, excludedOf, RATE_LOOKBACK_MS } from '../../../domain/spot/combine.js';
import { baseOf } from '../../../domain/spot/market.js';
import { REFERENCE_POLICY } from '../../../domain/spot/reference-price.js';
import * as stats from '../../../domain/spot/stats-24h.js';
import { select, sourcesOf, venuesOf, type Selection } from './spot-select.js';

async function dayOfBars(deps: DataDeps, q: MetricQuery, sel: Selection) {
  const to = new Date(q.now.getTime() + 1);
  const from = q.now.getTime() - stats.DAY_MS - REFERENCE_POLICY.maxAgeMs;
  if (!sel.combined) {
    const series = await marketBars(deps.db, 'candles_1m', sel.markets, new Date(from), to);
    return { bars: series[0]?.bars ?? [], series, excluded: [] as MetricAnswer['excluded'] };
  }
  const read = await marketBars(deps.db, 'candles_1m', sel.markets, new Date(from - RATE_LOOKBACK_MS), to);
  const combined = combineMarkets(read, from);
  const series = read.map((s) => ({ market: s.market, bars: s.bars.filter((b) => b.ts >= from) }));
  return { bars: combined.bars, series, excluded: excludedOf(combined.members) };
}

function statAnswer(
  q: MetricQuery,
  sel: Selection,
  day: Awaited<ReturnType<typeof dayOfBars>>,
  data: Record<string, unknown>,
  method: string,
): MetricAnswer {
  const last = day.bars[day.bars.length - 1]!;
  const asOf = last.ts + 60_000;
  const venues = venuesOf(day.series);
  const ages = {
    venues: venues.length,
    dispersion: sel.combined ? relativeDispersionOfUsd(day) : 0,
    max_age_ms: REFERENCE_POLICY.maxAgeMs,
  };
  return {
    data: { symbol: sel.symbol, ...(sel.combined ? {} : { venue: q.source }), ...data },
    as_of: new Date(asOf).toISOString(),
    venues,
    staleness_ms: Math.max(0, q.now.getTime() - asOf),
    confidence: confidence({ ...ages, staleness_ms: Math.max(0, q.now.getTime() - asOf) }),
    sources: sourcesOf(day.series),
    method:
      (sel.combined
        ? `Combined 1m bars of every ${baseOf(sel.symbol)} market (each converted to USD at its bar time's derived quote rate, median OHLC across markets, volumes summed); `
        : `1m bars of ${q.source} ${sel.symbol}, in ${sel.symbol.split('-')[1]}; `) +
      `window: the 24 h ending at the close of the newest bar. ${method}`,
    excluded: day.excluded ?? [],
    // The 24 h window moves by whole minutes, on which the cache drops every answer anyway.
    ageing: { asOf, confidence: ages },
  };
  function relativeDispersionOfUsd(d: typeof day): number {
    const lastCombined = d.bars[d.bars.length - 1]!;
    return relativeDispersion(
      d.series.flatMap((s) => {
        const b = s.bars.find((x) => x.ts === lastCombined.ts);
        return b && s.market.quote === 'USD' ? [b.close] : [];
      }),
    );
  }
}

function statResolver(
  compute: (bars: Bar[]) => Record<string, unknown> | undefined,
  method: string,
): MetricResolver<DataDeps> {
  return async (deps, q) => {
    const sel = await select(deps, q);
    if (!sel.ok) return sel;
    const day = await dayOfBars(deps, q, sel.value);
    const value = day.bars.length > 0 ? compute(day.bars) : undefined;
    if (!value) return refuse('not_found', `no 1m bars of ${sel.value.symbol} in the last 24 h`);
    return ok(statAnswer(q, sel.value, day, value, method));
  };
}

export const tradeCountResolver: MetricResolver<DataDeps> = async (deps, q) => {
  const sel = await select(deps, q);
  if (!sel.ok) return sel;
  const day = await dayOfBars(deps, q, { ...sel.value, combined: false });
  const newest = Math.max(...day.series.flatMap((s) => s.bars.map((b) => b.ts)));
  if (!Number.isFinite(newest))
    return refuse('not_found', `no 1m bars of ${sel.value.symbol} in the last 24 h`);
  const from = newest + 60_000 - stats.DAY_MS;
  const perVenue = day.series.map((s) => {
    const counted = s.bars.filter((b) => b.ts >= from && b.trade_count !== null);
    return {
      market: s.market,
      count: counted.length ? counted.reduce((n, b) => n + b.trade_count!, 0) : null,
    };
  });
  const counted = perVenue.filter((v) => v.count !== null);
  const answer = statAnswer(
    q,
    sel.value,
    { ...day, bars: [{ ts: newest } as Bar] },
    {
      trade_count: counted.length ? counted.reduce((n, v) => n + v.count!, 0) : null,
      by_venue: counted.map((v) => ({
        venue: v.market.venue,
        symbol: v.market.symbol,
        trade_count: v.count,
      })),
      window: { from: new Date(from).toISOString(), to: new Date(newest + 60_000).toISOString() },
    },
    'Sum over markets of the trade counts of their 1m bars; markets whose venue reports no counts are excluded.',
  );
  answer.excluded = perVenue
    .filter((v) => v.count === null)
    .map((v) => ({
      venue: v.market.venue,
      symbol: v.market.symbol,
      reason: 'the venue reports no trade counts for these bars',
    }));
  answer.method = answer.method.replace(
    /^Combined 1m bars[^;]*; /,
    `1m bars of every ${baseOf(sel.value.symbol)} market; `,
  );
  return ok(answer);
};

/** crypto/spot's 24 h statistics over the 1m bars of the day. */
export const spotStatResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/spot/change_24h': statResolver(
    (b) => stats.change24h(b),
    'Change: newest close versus the close of the newest bar at least 24 h older, in percent.',
  ),
  'crypto/spot/range_24h': statResolver(
    (b) => stats.range24h(b),
    'High and low of the bars, volume summed (base units).',
  ),
  'crypto/spot/vwap_24h': statResolver(
    (b) => stats.vwap24h(b),
    'Sum of midprice ((high + low) / 2) x volume over the summed volume.',
  ),
  'crypto/spot/realized_volatility_24h': statResolver(
    (b) => stats.realizedVolatility24h(b),
    'Sample standard deviation of log returns between consecutive 1m closes in percent; annualised x sqrt(525,600).',
  ),
  'crypto/spot/trade_count_24h': tradeCountResolver,
};
