import type { DataDeps } from '../../../deps.js';
import { dayOf, percentChange } from '../../../domain/feeds/computations.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const commodity = (source: string, file: string, key: string, unit: string, words: string) =>
  latestResolver({
    source,
    file,
    metric: 'commodity_spot',
    key: () => key,
    unit,
    take: 2,
    method: `${words}; the newest price and the change from the previous one.`,
    object: ([o, prev]) => ({
      commodity: key,
      price: o!.value,
      day: dayOf(o!.ts),
      change_pct: prev?.value != null && o!.value !== null ? percentChange(o!.value, prev.value) : null,
    }),
  });

/** commodities: EIA energy spot prices, the LBMA gold and silver prices, the IMF copper price. */
export const commodityResolvers: Record<string, MetricResolver<DataDeps>> = {
  'commodities/energy/wti_crude': commodity(
    'eia',
    'RWTC',
    'wti_crude',
    'USD/bbl',
    'EIA API v2 daily spot price, series RWTC (Cushing, OK WTI, FOB)',
  ),
  'commodities/energy/natural_gas': commodity(
    'eia',
    'RNGWHHD',
    'natural_gas',
    'USD/MMBtu',
    'EIA API v2 daily spot price, series RNGWHHD (Henry Hub)',
  ),
  'commodities/metals/gold': commodity(
    'lbma',
    'gold',
    'gold',
    'USD/ozt',
    'LBMA Gold Price PM auction, USD (administered by ICE Benchmark Administration; use needs an IBA licence)',
  ),
  'commodities/metals/silver': commodity(
    'lbma',
    'silver',
    'silver',
    'USD/ozt',
    'LBMA Silver Price auction, USD (administered by ICE Benchmark Administration; use needs an IBA licence)',
  ),
  'commodities/metals/copper': commodity(
    'fred',
    'PCOPPUSDM',
    'copper',
    'USD/t',
    "IMF global price of copper, monthly average, through FRED (series PCOPPUSDM); the newest month is dated its 1st. Not the LME's price: LME's licence forbids redistributing it",
  ),
};
