import type { DataDeps } from '../../../deps.js';
import { dayOf, percentChange } from '../../../domain/feeds/computations.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const dailyClose = (key: string, series: string, words: string) =>
  latestResolver({
    source: 'fred',
    file: series,
    metric: 'index_close',
    key: () => key,
    unit: 'index points',
    take: 2,
    method: `FRED series ${series}, daily close of the ${words} (index data © its provider, shown through FRED; not licensed for resale): the newest close and the change from the previous one.`,
    object: ([o, prev]) => ({
      index: key,
      level: o!.value,
      day: dayOf(o!.ts),
      change_pct: prev?.value != null && o!.value !== null ? percentChange(o!.value, prev.value) : null,
    }),
  });

/** stocks/indices: the daily closes FRED publishes (SP500, NASDAQCOM). */
export const indexResolvers: Record<string, MetricResolver<DataDeps>> = {
  'stocks/indices/sp500': dailyClose('sp500', 'SP500', 'S&P 500 (S&P Dow Jones Indices)'),
  'stocks/indices/nasdaq': dailyClose('nasdaq', 'NASDAQCOM', 'Nasdaq Composite (Nasdaq, Inc.)'),
};
