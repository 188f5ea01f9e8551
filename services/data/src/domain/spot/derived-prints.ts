import type { Bar } from '../series/bar.js';

/**
 * Trade prints and 1s bars derived from a recorded 1m bar, for the offline replay, which has 1m bars
 * only (no recorded prints exist). Deterministic: the same bar and seed give the same prints, so a
 * restart re-ingests identical rows. They are consistent with the bar, never more than it says:
 *
 * - the first print is at its open, the last at its close, and the path passes its high and its low
 *   (low first on an up minute, high first on a down one); every price lies within [low, high];
 * - the sizes sum to its volume (whole 1e-8 units), and their count is its trade count, or, where the
 *   venue gives none, one print per PRINT_SIZE of volume (at most MAX_PRINTS); never fewer prints than
 *   the distinct prices the path must visit (a Kraken minute counting 2 trades over 3 prices gets 3);
 * - the taker side follows the tick: buy on an uptick, sell on a downtick, a coin flip when unchanged;
 * - rolled up per second they give 1s bars whose roll-up is the 1m bar again.
 */

export interface DerivedPrint {
  /** Index in the minute, 0-based: with the minute, a stable trade id. */
  index: number;
  ts: number;
  price: number;
  size: number;
  taker_side: 'buy' | 'sell';
}

/** Base units per derived print where the venue gives no trade count. */
export const PRINT_SIZE = 0.25;
/** At most this many derived prints per minute where the venue gives no count (keeps the replay small). */
export const MAX_PRINTS = 30;
const MINUTE_MS = 60_000;
const UNITS = 1e8;
/** The venues' price tick in the recordings (two decimals). */
const TICK = 100;

/** The prints of one 1m bar (its ts the minute's open), ascending in time; none for a minute without volume. */
export function derivePrints(bar: Bar, seed: string): DerivedPrint[] {
  const units = Math.round(bar.volume * UNITS);
  if (units <= 0) return [];
  const random = rng(`${seed}:${bar.ts}`);
  let keys = pathOf(bar);
  const wanted = bar.trade_count ?? Math.min(MAX_PRINTS, Math.ceil(bar.volume / PRINT_SIZE));
  const n = Math.min(units, Math.max(wanted, keys.length, 1));
  // Only a volume below a few 1e-8 units has fewer units than prices to visit: keep the open and close.
  if (keys.length > n) keys = n === 1 ? [bar.close] : [...keys.slice(0, n - 1), bar.close];
  const prices = pricesAlong(keys, n, random);
  const sizes = split(units, n, random);
  const offsets = Array.from({ length: n }, () => Math.floor(random() * MINUTE_MS)).sort((a, b) => a - b);
  return prices.map((price, i) => ({
    index: i,
    ts: bar.ts + offsets[i]!,
    price,
    size: sizes[i]! / UNITS,
    taker_side: sideOf(price, i > 0 ? prices[i - 1] : undefined, random),
  }));
}

/** The 1s bars of a minute's prints; `withCounts` false keeps trade_count null as the venue's 1m bar. */
export function secondBars(prints: DerivedPrint[], withCounts: boolean): Bar[] {
  const out: Bar[] = [];
  for (const p of prints) {
    const ts = Math.floor(p.ts / 1000) * 1000;
    const last = out[out.length - 1];
    if (last && last.ts === ts) {
      last.high = Math.max(last.high, p.price);
      last.low = Math.min(last.low, p.price);
      last.close = p.price;
      last.volume = Math.round((last.volume + p.size) * UNITS) / UNITS;
      if (last.trade_count !== null) last.trade_count++;
    } else
      out.push({
        ts,
        open: p.price,
        high: p.price,
        low: p.price,
        close: p.price,
        volume: p.size,
        trade_count: withCounts ? 1 : null,
      });
  }
  return out;
}

/** open → low → high → close on an up minute (close ≥ open), open → high → low → close otherwise; repeats merged. */
function pathOf(bar: Bar): number[] {
  const turn = bar.close >= bar.open ? [bar.low, bar.high] : [bar.high, bar.low];
  const keys: number[] = [];
  for (const p of [bar.open, ...turn, bar.close]) if (keys[keys.length - 1] !== p) keys.push(p);
  return keys;
}

/** n prices visiting the keys in order (the first at the first key, the last at the last), in between on the segment. */
function pricesAlong(keys: number[], n: number, random: () => number): number[] {
  if (keys.length === 1) return Array.from({ length: n }, () => keys[0]!);
  const at = keys.map((_, j) => Math.round((j * (n - 1)) / (keys.length - 1)));
  const prices: number[] = [];
  for (let j = 0; j < keys.length - 1; j++) {
    const [a, b] = [at[j]!, at[j + 1]!];
    const [pa, pb] = [keys[j]!, keys[j + 1]!];
    prices.push(pa);
    for (let i = a + 1; i < b; i++) {
      const along = pa + ((pb - pa) * (i - a)) / (b - a) + (random() - 0.5) * 0.3 * Math.abs(pb - pa);
      const bounded = Math.min(Math.max(along, Math.min(pa, pb)), Math.max(pa, pb));
      prices.push(Math.round(bounded * TICK) / TICK);
    }
  }
  prices.push(keys[keys.length - 1]!);
  return prices;
}

/** `units` split into n positive whole parts, of random (exponential) weights. */
function split(units: number, n: number, random: () => number): number[] {
  const weights = Array.from({ length: n }, () => -Math.log(1 - random()));
  const total = weights.reduce((s, w) => s + w, 0);
  const parts = weights.map((w) => 1 + Math.floor(((units - n) * w) / total));
  const rest = units - parts.reduce((s, p) => s + p, 0);
  const largest = parts.indexOf(Math.max(...parts));
  parts[largest]! += rest;
  return parts;
}

function sideOf(price: number, previous: number | undefined, random: () => number): 'buy' | 'sell' {
  if (previous !== undefined && price !== previous) return price > previous ? 'buy' : 'sell';
  return random() < 0.5 ? 'buy' : 'sell';
}

/** A small seeded generator (FNV-1a of the seed, then mulberry32): the same seed, the same sequence. */
function rng(seed: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
