import type { DataDeps } from '../../deps.js';
import { dayOf, percentChange } from '../../domain/feeds/computations.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const dailyClose = (key: string, words: string) =>
  latestResolver({
    source: 'stooq',
    file: key === 'sp500' ? 'spx' : 'ndq',
    metric: 'index_close',
    key: () => key,
    unit: 'index points',
    take: 2,
    method: `Stooq daily bars of the ${words}: the newest close, its bar and the change from the previous close.`,
    object: ([o, prev]) => ({
      index: key,
      level: o!.value,
      day: dayOf(o!.ts),
      open: o!.payload.open,
      high: o!.payload.high,
      low: o!.payload.low,
      change_pct: prev?.value != null && o!.value !== null ? percentChange(o!.value, prev.value) : null,
    }),
  });

/** stocks/indices: Stooq's daily bars. */
export const indexResolvers: Record<string, MetricResolver<DataDeps>> = {
  'stocks/indices/sp500': dailyClose('sp500', 'S&P 500 (^SPX)'),
  'stocks/indices/nasdaq': dailyClose('nasdaq', 'Nasdaq Composite (^NDQ)'),
};
