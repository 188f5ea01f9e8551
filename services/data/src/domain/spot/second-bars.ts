import type { CandleRow, TradeRow } from '@meridian/contracts';

/** The trades a venue answered in one poll, with what the connector kept of the last one. */
export interface TradeWindow {
  /** The trades of this poll and the held-back trades of the previous one; order and duplicates do not matter. */
  trades: readonly TradeRow[];
  /**
   * Whether trades older than the window may be missing (the venue answered as many as we asked for,
   * or this is the first poll): the oldest second of the window may then be only partly seen.
   */
  gapBefore: boolean;
}

export interface SecondBars {
  /** One 1s bar per second the window covers completely, oldest first. */
  bars: CandleRow[];
  /**
   * The trades of the newest second: more of that second may come, so its bar is built on a later
   * poll, from these and the trades that poll brings.
   */
  pending: TradeRow[];
}

const SECOND = 1000;

/**
 * 1s OHLCV bars built from taker trades, for a venue that has no 1s candles of its own. A bar is written
 * only for a second known complete: never the newest second of the window (its later trades are still
 * to come: held back as `pending`), nor the oldest one when trades before the window may be missing —
 * the ingestion replaces a stored bar with a corrected one, so a bar built from half a second would
 * overwrite nothing wrong but would be wrong itself. Seconds without trades have no bar, as at a venue.
 */
export function secondBars(window: TradeWindow): SecondBars {
  const byId = new Map<string, TradeRow>();
  for (const t of window.trades) byId.set(t.trade_id, t);
  const trades = [...byId.values()].sort(
    (a, b) => Date.parse(a.ts) - Date.parse(b.ts) || compareTradeIds(a.trade_id, b.trade_id),
  );
  if (trades.length === 0) return { bars: [], pending: [] };
  const secondOf = (t: TradeRow) => Math.floor(Date.parse(t.ts) / SECOND) * SECOND;
  const newest = secondOf(trades[trades.length - 1]!);
  const oldest = secondOf(trades[0]!);
  const bars: CandleRow[] = [];
  let current: { second: number; row: CandleRow } | undefined;
  for (const t of trades) {
    const second = secondOf(t);
    if (second === newest || (window.gapBefore && second === oldest)) continue;
    if (current?.second !== second) {
      current = {
        second,
        row: {
          ts: new Date(second).toISOString(),
          open: t.price,
          high: t.price,
          low: t.price,
          close: t.price,
          volume: 0,
          trade_count: 0,
        },
      };
      bars.push(current.row);
    }
    const row = current.row;
    row.high = Math.max(row.high, t.price);
    row.low = Math.min(row.low, t.price);
    row.close = t.price;
    row.volume += t.size;
    row.trade_count = (row.trade_count ?? 0) + 1;
  }
  return { bars, pending: trades.filter((t) => secondOf(t) === newest) };
}

/**
 * Order of two trade ids of one market: numerically when both are numbers (every venue here numbers its
 * trades in sequence), else as text.
 */
export function compareTradeIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return a < b ? -1 : a > b ? 1 : 0;
}
