import { round } from './options.js';

export interface PerpMark extends FuturesPrint {
  mark_price: number;
  index_price: number | null;
}

export interface UsdMark extends PerpMark {
  quote: string;
  mark_price_usd: number;
}

/** A futures row of one venue's market at a time: a mark price or a funding rate. */
export interface FuturesPrint {
  venue: string;
  symbol: string;
  ts: Date;
}

/**
 * Prints young enough to use: a venue's newest mark (or funding rate) older than `maxAgeMs` is dropped
 * and named (a venue that stopped publishing must not hold the median at an old value). The replay
 * plays the recorded perps minute by minute, so it needs no exemption.
 */
export function freshMarks<M extends FuturesPrint>(
  marks: M[],
  nowMs: number,
  maxAgeMs: number,
  what = 'mark',
): { kept: M[]; excluded: { venue: string; reason: string }[] } {
  const kept: M[] = [];
  const excluded: { venue: string; reason: string }[] = [];
  for (const m of marks) {
    const age = nowMs - m.ts.getTime();
    if (age <= maxAgeMs) kept.push(m);
    else
      excluded.push({
        venue: m.venue,
        reason: `stale: newest ${m.symbol} ${what} is ${Math.round(age / 1000)} s old, beyond ${maxAgeMs / 1000} s`,
      });
  }
  return { kept, excluded };
}

/**
 * Prices in USD: a USD-quoted perp's as is, another quote's through the spot side's measured rate of
 * that quote currency (never assumed 1.0); a price whose quote has no rate is left out, named.
 */
export function pricesInUsd<P extends { venue: string; symbol: string }>(
  prints: P[],
  price: (p: P) => number,
  quoteRates: Map<string, number>,
  what: string,
): { kept: (P & { quote: string; usd: number })[]; excluded: { venue: string; reason: string }[] } {
  const kept: (P & { quote: string; usd: number })[] = [];
  const excluded: { venue: string; reason: string }[] = [];
  for (const p of prints) {
    const quote = p.symbol.split('-')[1] ?? 'USD';
    const rate = quote === 'USD' ? 1 : quoteRates.get(quote);
    if (rate === undefined)
      excluded.push({
        venue: p.venue,
        reason: `no measured USD rate for ${quote}; its ${p.symbol} ${what} is not converted`,
      });
    else kept.push({ ...p, quote, usd: round(price(p) * rate, 4) });
  }
  return { kept, excluded };
}

/** Marks in USD (pricesInUsd). */
export function marksInUsd(
  marks: PerpMark[],
  quoteRates: Map<string, number>,
): { kept: UsdMark[]; excluded: { venue: string; reason: string }[] } {
  const { kept, excluded } = pricesInUsd(marks, (m) => m.mark_price, quoteRates, 'mark');
  return { kept: kept.map(({ usd, ...m }) => ({ ...m, mark_price_usd: usd })), excluded };
}

/** Basis in percent: (perp mark_price - spot reference_price) / reference_price x 100 (data 4.2). */
export function basisPercent(markUsd: number, referencePrice: number): number {
  return round(((markUsd - referencePrice) / referencePrice) * 100, 6);
}
