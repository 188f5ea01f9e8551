import { ok, refuse, type Result } from '@meridian/contracts';
import { marketsOf } from '../../../db/repositories/candles.js';
import type { DataDeps } from '../../../deps.js';
import type { MetricQuery, SourceRef } from '../../../domain/metric-resolver.js';
import type { MarketBars } from '../../../domain/spot/combine.js';
import { baseOf, ENTITY_PATTERN, type Market } from '../../../domain/spot/market.js';

export const SYMBOL = /^[A-Z0-9]{2,12}-[A-Z0-9]{2,12}$/;

export interface Selection {
  /** The markets behind the answer. */
  markets: Market[];
  /** One venue's own market in its own quote currency, or every market of the base in USD. */
  combined: boolean;
  symbol: string;
}

/** entity=BASE-QUOTE. With source: that venue's market of that symbol, native; without: every market of BASE, in USD. */
export async function select(deps: DataDeps, q: MetricQuery): Promise<Result<Selection>> {
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

export function sourcesOf(series: MarketBars[]): SourceRef[] {
  return series
    .filter((s) => s.bars.length > 0)
    .map((s) => ({
      venue: s.market.venue,
      symbol: s.market.symbol,
      ts: new Date(s.bars[s.bars.length - 1]!.ts).toISOString(),
    }));
}

export function venuesOf(series: MarketBars[]): string[] {
  return [...new Set(series.filter((s) => s.bars.length > 0).map((s) => s.market.venue))];
}
