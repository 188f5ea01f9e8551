import { ok, refuse } from '@meridian/contracts';
import { tradesBefore, type TradesPosition } from '../../../db/repositories/trades.js';
import type { DataDeps } from '../../../deps.js';
import { confidence } from '../../../domain/confidence.js';
import type { MetricResolver, SourceRef } from '../../../domain/metric-resolver.js';
import { PAGE_SIZE } from '../../../domain/series/shape.js';
import { SYMBOL } from './spot-select.js';

const TRADE_COLUMNS = ['ts', 'venue', 'symbol', 'trade_id', 'price', 'size', 'taker_side'];

export const tradesResolver: MetricResolver<DataDeps> = async (deps, q) => {
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
  const fixed = page.length
    ? confidence({ venues: venues.length, dispersion: 0, staleness_ms: 0, max_age_ms: 1 })
    : 0;
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
    confidence: fixed,
    // An empty page is as of now, which moves: never kept.
    ...(page.length ? { ageing: { asOf, confidence: fixed } } : {}),
    sources: [...latestPerVenue.values()],
    method: `Trade prints of ${symbol}${q.source ? ` on ${q.source}` : ' on every venue'} as the venues reported them, taker side normalised (buy: the taker lifted the ask); price in ${symbol.split('-')[1]}; newest ${PAGE_SIZE} per page, the cursor walks back in time.`,
  });
};
