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
 * and named (a venue that stopped publishing must not hold the median at an old value). A replayed
 * recorded sample is one point shifted to the present, with no polling behind it: it is kept, its age
 * shows in staleness_ms and confidence, and the method says it is a replay.
 */
export function freshMarks<M extends FuturesPrint>(
  marks: M[],
  nowMs: number,
  maxAgeMs: number,
  isReplayed: (m: M) => boolean,
  what = 'mark',
): { kept: M[]; excluded: { venue: string; reason: string }[] } {
  const kept: M[] = [];
  const excluded: { venue: string; reason: string }[] = [];
  for (const m of marks) {
    const age = nowMs - m.ts.getTime();
    if (age <= maxAgeMs || isReplayed(m)) kept.push(m);
    else
      excluded.push({
        venue: m.venue,
        reason: `stale: newest ${m.symbol} ${what} is ${Math.round(age / 1000)} s old, beyond ${maxAgeMs / 1000} s`,
      });
  }
  return { kept, excluded };
}

/**
 * Marks in USD: a USD-quoted perp as is, another quote through the spot side's measured rate of
 * that quote currency (never assumed 1.0); a mark whose quote has no rate is left out, named.
 */
export function marksInUsd(
  marks: PerpMark[],
  quoteRates: Map<string, number>,
): { kept: UsdMark[]; excluded: { venue: string; reason: string }[] } {
  const kept: UsdMark[] = [];
  const excluded: { venue: string; reason: string }[] = [];
  for (const m of marks) {
    const quote = m.symbol.split('-')[1] ?? 'USD';
    const rate = quote === 'USD' ? 1 : quoteRates.get(quote);
    if (rate === undefined) {
      excluded.push({
        venue: m.venue,
        reason: `no measured USD rate for ${quote}; its ${m.symbol} mark is not converted`,
      });
      continue;
    }
    kept.push({ ...m, quote, mark_price_usd: round(m.mark_price * rate, 4) });
  }
  return { kept, excluded };
}

/** Basis in percent: (perp mark_price - spot reference_price) / reference_price x 100 (data 4.2). */
export function basisPercent(markUsd: number, referencePrice: number): number {
  return round(((markUsd - referencePrice) / referencePrice) * 100, 6);
}
