import { findMetric } from '@meridian/contracts';
import { confidence, median, relativeDispersion } from '../confidence.js';
import { baseOf, marketLabel, type Market } from './market.js';

/** The latest print of one market, as the repository answers it. */
export interface MarketQuote extends Market {
  /** Close of the newest bar, in the quote currency. */
  price: number;
  /** Open time of that bar, ms since the epoch. */
  ts: number;
  /** Length of that bar (1 s or 1 min): the print is as new as ts + bar_ms. */
  bar_ms: number;
  /** Base volume over the weighting window: the weight of the venue in the median. */
  volume: number;
}

export const REFERENCE_POLICY = {
  /** A market whose newest bar is older than this is dropped as stale: the catalogue's max age of crypto/spot. */
  maxAgeMs: findMetric('crypto', 'spot', 'reference_price')!.metric.max_age_ms!,
  /** Window of the volume that weights each venue. */
  weightWindowMs: 60 * 60_000,
  /** Outlier when |price - median| > max(madK x 1.4826 x MAD, floor x median). */
  madK: 3,
  floor: 0.01,
  /** Two legs priced further apart in time than this do not make a quote rate. */
  rateMaxSkewMs: 5 * 60_000,
} as const;

export interface QuoteRate {
  quote: string;
  /** USD per unit of the quote currency. */
  rate: number;
  /** How it was derived, e.g. 'binanceus:BTC-USD / binanceus:BTC-USDC'. */
  from: string[];
}

export interface VenuePrice {
  venue: string;
  symbol: string;
  /** Price in USD after quote conversion. */
  price: number;
  /** The venue's own print in its quote currency. */
  price_quoted: number;
  ts: string;
}

export interface ReferencePrice {
  symbol: string;
  price: number;
  venues: VenuePrice[];
  excluded: { venue: string; symbol: string; reason: string }[];
  quote_rates: QuoteRate[];
  as_of: number;
  dispersion: number;
  confidence: number;
  /** The time the answer stops being right without new data: the first kept quote turns stale. */
  valid_until: number;
}

interface RateSample {
  venue: string;
  rate: number;
  from: string;
}

/** USD rates of the non-USD quote currencies: one for display, and the one that converts a venue's market. */
export interface QuoteRates {
  /** Per quote currency, the rate over every venue (what the answer shows). */
  all: Map<string, QuoteRate>;
  /** The rate that converts `venue`'s market quoted in `quote`; undefined when none is derivable. */
  forVenue(venue: string, quote: string): QuoteRate | undefined;
}

/**
 * USD value of each non-USD quote currency, from the data itself, never assumed to be 1.0. A direct
 * market Q-USD (e.g. USDC-USD) gives it outright. Otherwise, on a venue listing BASE-USD and BASE-Q,
 * Q is worth price(BASE-USD) / price(BASE-Q) dollars: the median over such venues. A venue's own market
 * is converted at the median over the OTHER venues when there are any: a venue whose USD book is off
 * would otherwise convert its other books into copies of that same print.
 */
export function deriveQuoteRates(quotes: MarketQuote[], base?: string): QuoteRates {
  const direct = new Map<string, RateSample[]>();
  const crossed = new Map<string, RateSample[]>();
  const add = (map: Map<string, RateSample[]>, quote: string, sample: RateSample) =>
    map.set(quote, [...(map.get(quote) ?? []), sample]);
  const byVenue = new Map<string, MarketQuote[]>();
  for (const q of quotes) {
    if (base !== undefined && q.base !== base) {
      if (q.quote === 'USD') add(direct, q.base, { venue: q.venue, rate: q.price, from: marketLabel(q) });
      continue;
    }
    byVenue.set(q.venue, [...(byVenue.get(q.venue) ?? []), q]);
  }
  for (const [venue, venueQuotes] of byVenue) {
    const usd = venueQuotes.find((q) => q.quote === 'USD');
    if (!usd) continue;
    for (const q of venueQuotes) {
      if (q.quote === 'USD' || Math.abs(q.ts - usd.ts) > REFERENCE_POLICY.rateMaxSkewMs) continue;
      add(crossed, q.quote, {
        venue,
        rate: usd.price / q.price,
        from: `${marketLabel(usd)} / ${marketLabel(q)}`,
      });
    }
  }
  const rateOf = (quote: string, samples: RateSample[]): QuoteRate => ({
    quote,
    rate: median(samples.map((s) => s.rate)),
    from: samples.map((s) => s.from),
  });
  const all = new Map<string, QuoteRate>();
  for (const quote of new Set([...direct.keys(), ...crossed.keys()]))
    all.set(quote, rateOf(quote, direct.get(quote) ?? crossed.get(quote)!));
  return {
    all,
    forVenue(venue, quote) {
      if (direct.has(quote)) return all.get(quote);
      const samples = crossed.get(quote);
      if (!samples) return undefined;
      const others = samples.filter((s) => s.venue !== venue);
      return others.length > 0 ? rateOf(quote, others) : all.get(quote);
    },
  };
}

/** Weighted median: the lowest price at which half of the total weight is reached. */
export function weightedMedian(items: { price: number; weight: number }[]): number {
  const sorted = [...items].sort((a, b) => a.price - b.price);
  const total = sorted.reduce((s, i) => s + i.weight, 0);
  if (total <= 0) return median(sorted.map((i) => i.price));
  let cumulative = 0;
  for (const item of sorted) {
    cumulative += item.weight;
    if (cumulative >= total / 2) return item.price;
  }
  return sorted[sorted.length - 1]!.price;
}

/** One venue's vote: its markets' USD prices weighted by their volume, with the summed volume. */
interface VenueVote {
  venue: string;
  usd: number;
  volume: number;
  markets: { q: MarketQuote; usd: number }[];
}

/** Collapses the converted markets into one vote per venue, so that a venue with many books counts once. */
export function venueVotes(converted: { q: MarketQuote; usd: number }[]): VenueVote[] {
  const byVenue = new Map<string, { q: MarketQuote; usd: number }[]>();
  for (const c of converted) byVenue.set(c.q.venue, [...(byVenue.get(c.q.venue) ?? []), c]);
  return [...byVenue].map(([venue, markets]) => {
    const volume = markets.reduce((s, m) => s + m.q.volume, 0);
    const usd =
      volume > 0
        ? markets.reduce((s, m) => s + m.usd * m.q.volume, 0) / volume
        : markets.reduce((s, m) => s + m.usd, 0) / markets.length;
    return { venue, usd, volume, markets };
  });
}

/**
 * The cross-venue reference price of entity BASE-USD at `now`: drop stale markets, convert every
 * quote to USD with its derived rate, collapse each venue to one vote (volume-weighted over its
 * markets), trim outlier venues by median absolute deviation, then take the volume-weighted median of
 * the votes. Undefined when no market is left. Fewer than three venues are not trimmed: with two, no
 * one can say which is off. `quotes` may also hold direct Q-USD markets of the quote currencies.
 */
export function referencePrice(
  entity: string,
  quotes: MarketQuote[],
  now: number,
  include: (q: MarketQuote) => boolean = () => true,
): ReferencePrice | undefined {
  const excluded: ReferencePrice['excluded'] = [];
  const base = baseOf(entity);
  const fresh = quotes.filter((q) => {
    const age = now - q.ts;
    if (age <= REFERENCE_POLICY.maxAgeMs) return true;
    if (q.base === base)
      excluded.push({ ...pick(q), reason: `stale: newest bar is ${Math.round(age / 1000)} s old` });
    return false;
  });
  const rates = deriveQuoteRates(fresh, base);
  // Rates come from every fresh market; `include` (a source filter) only narrows what is priced.
  const converted = fresh
    .filter((q) => q.base === base && include(q))
    .flatMap((q) => {
      const rate = q.quote === 'USD' ? 1 : rates.forVenue(q.venue, q.quote)?.rate;
      if (rate === undefined) {
        excluded.push({ ...pick(q), reason: `no USD rate for ${q.quote} derivable from the data` });
        return [];
      }
      return [{ q, usd: q.price * rate }];
    });
  const kept = trimOutliers(venueVotes(converted), excluded);
  if (kept.length === 0) return undefined;
  const price = weightedMedian(kept.map((v) => ({ price: v.usd, weight: v.volume })));
  const markets = kept.flatMap((v) => v.markets);
  // The newest kept bar's close, not its open; a bar still in progress is as new as now.
  const asOf = Math.min(now, Math.max(...markets.map((k) => k.q.ts + k.q.bar_ms)));
  const dispersion = relativeDispersion(kept.map((v) => v.usd));
  return {
    symbol: entity,
    price,
    venues: markets.map(({ q, usd }) => ({
      venue: q.venue,
      symbol: q.symbol,
      price: usd,
      price_quoted: q.price,
      ts: new Date(q.ts).toISOString(),
    })),
    excluded,
    quote_rates: [...rates.all.values()],
    as_of: asOf,
    dispersion,
    confidence: confidence({
      venues: kept.length,
      dispersion,
      staleness_ms: now - asOf,
      max_age_ms: REFERENCE_POLICY.maxAgeMs,
    }),
    valid_until: Math.min(...markets.map((k) => k.q.ts)) + REFERENCE_POLICY.maxAgeMs,
  };
}

function pick(q: Market): { venue: string; symbol: string } {
  return { venue: q.venue, symbol: q.symbol };
}

function trimOutliers(votes: VenueVote[], excluded: ReferencePrice['excluded']): VenueVote[] {
  if (votes.length < 3) return votes;
  const m = median(votes.map((v) => v.usd));
  const mad = median(votes.map((v) => Math.abs(v.usd - m)));
  const limit = Math.max(REFERENCE_POLICY.madK * 1.4826 * mad, REFERENCE_POLICY.floor * m);
  return votes.filter((v) => {
    const off = (v.usd - m) / m;
    if (Math.abs(v.usd - m) <= limit) return true;
    const reason =
      `outlier: ${(off * 100).toFixed(2)} % from the cross-venue median, beyond ${((limit / m) * 100).toFixed(2)} %` +
      (v.markets.length > 1
        ? ` (the venue's volume-weighted price over its ${v.markets.length} markets)`
        : '');
    for (const { q } of v.markets) excluded.push({ ...pick(q), reason });
    return false;
  });
}
