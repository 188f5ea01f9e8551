import type { CatalogHit } from '@meridian/contracts';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { DataDeps } from '../deps.js';
import type { Ingestor } from '../flows/ingestor.js';
import {
  marketBars,
  marketsOf,
  newestBarBefore,
  referenceQuotes,
  rollupBars,
  type NativeTable,
} from '../db/repositories/candles.js';
import { combinedRollups } from '../db/repositories/combined-rollups.js';
import { tradesBefore, type TradesPosition } from '../db/repositories/trades.js';
import { confidence, relativeDispersion } from '../domain/confidence.js';
import type { MetricAnswer, MetricQuery, MetricResolver, SourceRef } from '../domain/metric-resolver.js';
import { INTERVAL_MS, rollUp, type Bar, type Interval } from '../domain/series/bar.js';
import { PAGE_SIZE } from '../domain/series/shape.js';
import {
  combineMarkets,
  excludedOf,
  mergeTallies,
  RATE_LOOKBACK_MS,
  rollUpBuckets,
  type CombinedBars,
  type MarketBars,
} from '../domain/spot/combine.js';
import { baseOf, ENTITY_PATTERN, type Market } from '../domain/spot/market.js';
import { REFERENCE_POLICY, referencePrice, type ReferencePrice } from '../domain/spot/reference-price.js';
import * as stats from '../domain/spot/stats-24h.js';

const SYMBOL = /^[A-Z0-9]{2,12}-[A-Z0-9]{2,12}$/;

interface Selection {
  /** The markets behind the answer. */
  markets: Market[];
  /** One venue's own market in its own quote currency, or every market of the base in USD. */
  combined: boolean;
  symbol: string;
}

/** entity=BASE-QUOTE. With source: that venue's market of that symbol, native; without: every market of BASE, in USD. */
async function select(deps: DataDeps, q: MetricQuery): Promise<Result<Selection>> {
  const entity = q.entity ?? 'BTC-USD';
  if (!SYMBOL.test(entity))
    return refuse('validation_failed', `entity: "${entity}" is not a BASE-QUOTE pair`);
  const all = await marketsOf(deps.db, baseOf(entity));
  if (q.source !== undefined) {
    const market = all.find((m) => m.venue === q.source && m.symbol === entity);
    if (market) return ok({ markets: [market], combined: false, symbol: entity });
    const listed = all.filter((m) => m.venue === q.source).map((m) => m.symbol);
    return refuse(
      'not_found',
      listed.length > 0
        ? `source ${q.source} lists no ${entity} market; it lists ${listed.join(', ')}`
        : `no data from source ${q.source} for ${baseOf(entity)}`,
    );
  }
  if (!ENTITY_PATTERN.test(entity))
    return refuse(
      'validation_failed',
      `entity: the combined value is in USD; ask for ${baseOf(entity)}-USD, or name a source`,
    );
  if (all.length === 0) return refuse('not_found', `no market data stored for ${entity}`);
  return ok({ markets: all, combined: true, symbol: entity });
}

function sourcesOf(series: MarketBars[]): SourceRef[] {
  return series
    .filter((s) => s.bars.length > 0)
    .map((s) => ({
      venue: s.market.venue,
      symbol: s.market.symbol,
      ts: new Date(s.bars[s.bars.length - 1]!.ts).toISOString(),
    }));
}

function venuesOf(series: MarketBars[]): string[] {
  return [...new Set(series.filter((s) => s.bars.length > 0).map((s) => s.market.venue))];
}

// ---------------------------------------------------------------- reference_price (cached)

interface CachedPrice {
  value: ReferencePrice | undefined;
  until: number;
  /** The answer without its age-dependent fields, built once per computed price. */
  answer: Omit<MetricAnswer, 'staleness_ms' | 'confidence'> | undefined;
}

/** Reference prices by `entity|source`. */
export type PriceCache = Map<string, CachedPrice>;

/**
 * The reference price is cached per (entity, source) until the first of: any candle batch is
 * ingested in this process, a kept quote turns stale, or one second (the bound for replicas that
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
      until: Math.min(now + deps.config.DATA_PRICE_CACHE_MS, value?.valid_until ?? Infinity),
      answer: value && priceAnswer(entity, value),
    };
    cache.set(key, hit);
  }
  const { value: price, answer } = hit;
  if (!price || !answer)
    return refuse('not_found', `no fresh quote for ${entity}${q.source ? ` on ${q.source}` : ''}`);
  const staleness = now - price.as_of;
  return ok({
    ...answer,
    staleness_ms: staleness,
    confidence: confidence({
      venues: answer.venues.length,
      dispersion: price.dispersion,
      staleness_ms: staleness,
      max_age_ms: REFERENCE_POLICY.maxAgeMs,
    }),
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

// ---------------------------------------------------------------- 24 h statistics

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
  const closes = day.series.flatMap((s) => (s.bars.length ? [s.bars[s.bars.length - 1]!.close] : []));
  const venues = venuesOf(day.series);
  return {
    data: { symbol: sel.symbol, ...(sel.combined ? {} : { venue: q.source }), ...data },
    as_of: new Date(asOf).toISOString(),
    venues,
    staleness_ms: Math.max(0, q.now.getTime() - asOf),
    confidence: confidence({
      venues: venues.length,
      dispersion: sel.combined ? relativeDispersionOfUsd(day) : 0,
      staleness_ms: Math.max(0, q.now.getTime() - asOf),
      max_age_ms: REFERENCE_POLICY.maxAgeMs,
    }),
    sources: sourcesOf(day.series),
    method:
      (sel.combined
        ? `Combined 1m bars of every ${baseOf(sel.symbol)} market (each converted to USD at its bar time's derived quote rate, median OHLC across markets, volumes summed); `
        : `1m bars of ${q.source} ${sel.symbol}, in ${sel.symbol.split('-')[1]}; `) +
      `window: the 24 h ending at the close of the newest bar. ${method}`,
    excluded: day.excluded ?? [],
  };
  function relativeDispersionOfUsd(d: typeof day): number {
    void closes;
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

const tradeCountResolver: MetricResolver<DataDeps> = async (deps, q) => {
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

// ---------------------------------------------------------------- ohlcv

const OHLCV_COLUMNS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'trade_count'];

/**
 * One market's own bars of the interval in [start, end), in its quote currency: 1s and 1m native; 5m,
 * 15m and 30m rolled up from the 1m rows; 1h and 4h from the stored exact hourly roll-ups, 1d from the
 * daily ones (candle_rollups).
 */
async function marketSeries(
  deps: DataDeps,
  markets: Market[],
  interval: Interval,
  start: Date,
  end: Date,
): Promise<MarketBars[]> {
  const ms = INTERVAL_MS[interval];
  let series: MarketBars[];
  if (interval === '1s') series = await marketBars(deps.db, 'candles_1s', markets, start, end);
  else if (ms < INTERVAL_MS['1h']) series = await marketBars(deps.db, 'candles_1m', markets, start, end);
  else series = await rollupBars(deps.db, interval === '1d' ? '1d' : '1h', markets, start, end);
  return series.map((s) => ({ market: s.market, bars: rollUp(s.bars, ms) }));
}

/**
 * The combined bars of the interval in [start, end): the exact roll-up of the combined 1m bars (1s: the
 * combined 1s bars), each converted at its own minute's rate. Below an hour, combined here from every
 * market's native bars, read from RATE_LOOKBACK_MS earlier so that the rates of the first minutes are
 * those of an unbounded read; 1h, 4h and 1d from the combined hourly and daily roll-ups that ingestion
 * keeps (combined_rollups), the same roll-up stored.
 */
async function combinedSeries(
  deps: DataDeps,
  sel: Selection,
  interval: Interval,
  start: Date,
  end: Date,
): Promise<CombinedBars> {
  const ms = INTERVAL_MS[interval];
  if (ms < INTERVAL_MS['1h']) {
    const table: NativeTable = interval === '1s' ? 'candles_1s' : 'candles_1m';
    const from = new Date(start.getTime() - RATE_LOOKBACK_MS);
    const combined = combineMarkets(
      await marketBars(deps.db, table, sel.markets, from, end),
      start.getTime(),
    );
    return { bars: rollUp(combined.bars, ms), members: combined.members };
  }
  const stored = await combinedRollups(
    deps.db,
    interval === '1d' ? '1d' : '1h',
    baseOf(sel.symbol),
    start,
    end,
  );
  const buckets = interval === '4h' ? rollUpBuckets(stored, ms) : stored;
  return {
    bars: buckets.flatMap((b) => (b.bar ? [b.bar] : [])),
    members: mergeTallies(buckets.flatMap((b) => b.members)),
  };
}

interface Page {
  bars: Bar[];
  venues: string[];
  sources: SourceRef[];
  excluded: MetricAnswer['excluded'];
}

/** A page of bars: that venue's market's own bars, or the combined bars with what each market gave. */
async function pageBars(
  deps: DataDeps,
  sel: Selection,
  interval: Interval,
  start: Date,
  end: Date,
): Promise<Page> {
  if (!sel.combined) {
    const series = await marketSeries(deps, sel.markets, interval, start, end);
    return {
      bars: series[0]?.bars ?? [],
      venues: venuesOf(series),
      sources: sourcesOf(series),
      excluded: [],
    };
  }
  const combined = await combinedSeries(deps, sel, interval, start, end);
  const gave = combined.members.filter((m) => m.last !== null);
  return {
    bars: combined.bars,
    venues: [...new Set(gave.map((m) => m.venue))],
    sources: gave.map((m) => ({ venue: m.venue, symbol: m.symbol, ts: new Date(m.last!).toISOString() })),
    excluded: excludedOf(combined.members),
  };
}

const ohlcvResolver: MetricResolver<DataDeps> = async (deps, q) => {
  const interval = (q.interval ?? '1m') as Interval;
  const sel = await select(deps, q);
  if (!sel.ok) return sel;
  const ms = INTERVAL_MS[interval];
  const native: NativeTable = interval === '1s' ? 'candles_1s' : 'candles_1m';
  const before = typeof q.cursor?.before === 'number' ? q.cursor.before : q.now.getTime() + 1;
  const newest = await newestBarBefore(deps.db, native, sel.value.markets, new Date(before));
  const method =
    (sel.value.combined
      ? `Combined bars of every ${baseOf(sel.value.symbol)} market: per ${interval === '1s' ? '1s' : '1m'} bar time, each market's bar converted to USD at the quote rate of that same bar time (BASE-USD close over BASE-QUOTE close on a venue listing both, both traded, median over venues; the last such rate up to ${RATE_LOOKBACK_MS / 60_000} min old otherwise; a bar with none is left out), median OHLC across markets, volumes summed`
      : `Bars of ${q.source} ${sel.value.symbol} in ${sel.value.symbol.split('-')[1]}`) +
    `; ${interval === '1s' || interval === '1m' ? `native ${interval} bars` : `rolled up exactly to ${interval} from ${sel.value.combined ? 'these combined' : 'its'} 1m bars (first open, highest high, lowest low, last close; hourly and daily partial aggregates kept as bars arrive), buckets aligned to UTC`}; a period with no trade is a gap, not a bar; newest ${PAGE_SIZE} buckets per page, the cursor walks back in time.`;
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
      columns: OHLCV_COLUMNS,
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
  return ok({
    data: null,
    rows: page.bars.map((b) => ({ ...b, ts: new Date(b.ts).toISOString() })),
    columns: OHLCV_COLUMNS,
    next_cursor_state: older === undefined ? null : { before: start },
    resumeBefore: (row) => ({ before: Date.parse(String(row.ts)) }),
    as_of: new Date(asOf).toISOString(),
    venues,
    staleness_ms: Math.max(0, q.now.getTime() - asOf),
    confidence: confidence({
      venues: venues.length,
      dispersion: 0,
      staleness_ms: Math.max(0, q.now.getTime() - asOf),
      max_age_ms: Math.max(ms, REFERENCE_POLICY.maxAgeMs),
    }),
    sources: page.sources,
    method,
    excluded: page.excluded,
  });
};

// ---------------------------------------------------------------- trades

const TRADE_COLUMNS = ['ts', 'venue', 'symbol', 'trade_id', 'price', 'size', 'taker_side'];

const tradesResolver: MetricResolver<DataDeps> = async (deps, q) => {
  const symbol = q.entity ?? 'BTC-USD';
  if (!SYMBOL.test(symbol))
    return refuse('validation_failed', `entity: "${symbol}" is not a BASE-QUOTE pair`);
  const c = q.cursor;
  const position: TradesPosition | undefined =
    c && typeof c.ts === 'number' && typeof c.venue === 'string' && typeof c.trade_id === 'string'
      ? { ts: c.ts, venue: c.venue, trade_id: c.trade_id }
      : undefined;
  const prints = await tradesBefore(deps.db, symbol, q.source, position, PAGE_SIZE + 1);
  const page = prints.slice(0, PAGE_SIZE);
  const oldest = page[page.length - 1];
  const newest = page[0];
  const asOf = newest ? Date.parse(newest.ts) : q.now.getTime();
  const venues = [...new Set(page.map((p) => p.venue))];
  const latestPerVenue = new Map<string, SourceRef>();
  for (const p of page)
    if (!latestPerVenue.has(p.venue))
      latestPerVenue.set(p.venue, { venue: p.venue, symbol: p.symbol, ts: p.ts });
  return ok({
    data: null,
    rows: [...page].reverse() as unknown as Record<string, unknown>[],
    columns: TRADE_COLUMNS,
    next_cursor_state:
      prints.length > PAGE_SIZE && oldest
        ? { ts: Date.parse(oldest.ts), venue: oldest.venue, trade_id: oldest.trade_id }
        : null,
    resumeBefore: (row) => ({ ts: Date.parse(String(row.ts)), venue: row.venue, trade_id: row.trade_id }),
    as_of: new Date(asOf).toISOString(),
    venues,
    staleness_ms: Math.max(0, q.now.getTime() - asOf),
    confidence: page.length
      ? confidence({ venues: venues.length, dispersion: 0, staleness_ms: 0, max_age_ms: 1 })
      : 0,
    sources: [...latestPerVenue.values()],
    method: `Trade prints of ${symbol}${q.source ? ` on ${q.source}` : ' on every venue'} as the venues reported them, taker side normalised (buy: the taker lifted the ask); price in ${symbol.split('-')[1]}; newest ${PAGE_SIZE} per page, the cursor walks back in time.`,
  });
};

/** The crypto/spot resolvers, keyed 'category/product/metric'. */
export const spotResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/spot/reference_price': referencePriceResolver,
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
  'crypto/spot/ohlcv': ohlcvResolver,
  'crypto/spot/trades': tradesResolver,
};

export type { CatalogHit };
