import type { DataDeps } from '../../../deps.js';
import { monthOf, pointsOf, yoyRow } from '../../../domain/feeds/computations.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const monthly = (metric: string, file: string, unit: string, words: string) =>
  latestResolver({
    source: 'fred',
    file,
    metric,
    key: () => '',
    unit,
    method: words,
    object: ([o]) => ({ period: monthOf(o!.ts), value: o!.value }),
  });

/** Growth in percent of a monthly series; `level` and `base_level` are the series' own values, in `levelUnit`. */
const yoy = (metric: string, file: string, levelUnit: string, words: string) =>
  latestResolver({
    source: 'fred',
    file,
    metric,
    key: () => '',
    unit: 'percent',
    take: 14,
    method: `${words} Year-over-year growth = (value of the newest month / value of the same month a year earlier - 1) x 100; level and base_level are the two monthly values, in ${levelUnit}.`,
    computed: yoyRow,
    object: (recent) => {
      const row = yoyRow(pointsOf(recent));
      if (!row) return undefined;
      const { ts: _ts, value, ...rest } = row;
      return { growth_pct: value, ...rest, level_unit: levelUnit };
    },
  });

/** macro: FRED's monthly M2 and CPI, and their year-over-year growth. */
export const macroResolvers: Record<string, MetricResolver<DataDeps>> = {
  'macro/money/m2_money_supply': monthly(
    'm2_money_supply',
    'M2SL',
    'USD',
    'FRED series M2SL (M2, seasonally adjusted, billions of dollars x 1e9), newest month.',
  ),
  'macro/money/m2_growth_yoy': yoy('m2_money_supply', 'M2SL', 'USD', 'FRED series M2SL.'),
  'macro/prices/cpi': monthly(
    'cpi',
    'CPIAUCSL',
    'index',
    'FRED series CPIAUCSL (CPI for all urban consumers, 1982-84 = 100, seasonally adjusted), newest month.',
  ),
  'macro/prices/cpi_inflation_yoy': yoy('cpi', 'CPIAUCSL', 'index', 'FRED series CPIAUCSL.'),
};
