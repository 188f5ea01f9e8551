import { ok } from '@meridian/contracts';
import type { DataDeps } from '../../deps.js';
import { latestPerKey } from '../../db/repositories/feeds-observations.js';
import type { MetricResolver } from '../metric-resolver.js';
import { entityOf, feedAnswer, iso, noData, sourceOf } from './answer.js';
import { change24hRow, dayOf, monthOf, percentChange, pointsOf, yoyRow } from './computations.js';
import { ETF_ALL } from './observation-keys.js';
import { latestResolver } from './resolve-observations.js';

const ETF_METHOD =
  'Farside Investors daily US spot bitcoin ETF flow table (US$m converted to USD; outflows negative); a day is dated 00:00 UTC of the trading day.';

/** Fund flows of the newest day: every fund, or the one fund named by entity. */
const flowByEtf: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const entity = entityOf(query, hit);
  if (!entity.ok) return entity;
  const source = sourceOf(query, hit);
  if (!source.ok) return source;
  const all = await latestPerKey(deps.db, 'etf_net_flow', query.now);
  const newest = Math.max(...all.map((o) => o.ts.getTime()));
  const day = all.filter((o) => o.ts.getTime() === newest && o.key !== ETF_ALL);
  const funds = day.filter((o) => !entity.value || o.key === entity.value);
  if (funds.length === 0) return noData('crypto/etf_flows/flow_by_etf');
  const asOf = new Date(newest);
  return ok(
    await feedAnswer(deps, {
      data: {
        day: dayOf(asOf),
        unit: 'USD',
        flows: Object.fromEntries(funds.map((o) => [o.key, o.value])),
      },
      now: query.now,
      asOf,
      sources: funds.map((o) => ({ venue: 'farside', ts: iso(o.ts), symbol: o.key })),
      method: `${ETF_METHOD} Net flow of the newest day per fund.`,
      hit,
      replay: { source: 'farside', file: 'etf_flows' },
    }),
  );
};

const etfLatest = (metric: string, words: string) =>
  latestResolver({
    source: 'farside',
    file: 'etf_flows',
    metric,
    key: (e) => e ?? ETF_ALL,
    unit: 'USD',
    method: `${ETF_METHOD} ${words}`,
    object: ([o], entity) => ({ fund: entity ?? 'all funds', day: dayOf(o!.ts), value: o!.value }),
  });

const fxResolvers = {
  'fx/spot/reference_rate': latestResolver({
    source: 'ecb',
    file: 'frankfurter',
    metric: 'fx_reference_rate',
    key: (e) => e!,
    defaultEntity: 'EUR-USD',
    unit: 'rate',
    method:
      'ECB euro foreign exchange reference rate (through Frankfurter), fixed about 16:00 CET; GBP-USD and USD-JPY are crossed through the euro: USD/GBP and JPY/USD.',
    object: ([o], entity) => ({
      pair: entity,
      rate: o!.value,
      fixing_day: dayOf(o!.ts),
      cross: o!.payload.cross,
    }),
  }),
  'fx/spot/change_24h': latestResolver({
    source: 'ecb',
    file: 'frankfurter',
    metric: 'fx_reference_rate',
    key: (e) => e!,
    defaultEntity: 'EUR-USD',
    unit: 'percent',
    take: 5,
    method:
      'Percent change of the ECB reference rate from the previous fixing at least 20 h older (the previous business day) to the newest.',
    computed: change24hRow,
    object: (recent, entity) => {
      const row = change24hRow(pointsOf(recent));
      return (
        row && {
          pair: entity,
          change_pct: row.value,
          rate: row.rate,
          previous_rate: row.previous_rate,
          from: row.from,
          to: row.ts,
        }
      );
    },
  }),
};

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

export const marketResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/etf_flows/net_flow': etfLatest(
    'etf_net_flow',
    'Net flow of the newest day: the Total column for all funds, or the fund named by entity.',
  ),
  'crypto/etf_flows/cumulative_net_flow': etfLatest(
    'etf_cumulative_net_flow',
    "Cumulative net flow since each fund's launch: the table's closing Total row.",
  ),
  'crypto/etf_flows/flow_by_etf': flowByEtf,
  ...fxResolvers,
  'stocks/indices/sp500': dailyClose('sp500', 'S&P 500 (^SPX)'),
  'stocks/indices/nasdaq': dailyClose('nasdaq', 'Nasdaq Composite (^NDQ)'),
  'commodities/energy/wti_crude': commodity(
    'eia',
    'spot_prices',
    'wti_crude',
    'USD/bbl',
    'EIA API v2 daily spot price, series RWTC (Cushing, OK WTI, FOB)',
  ),
  'commodities/energy/natural_gas': commodity(
    'eia',
    'spot_prices',
    'natural_gas',
    'USD/MMBtu',
    'EIA API v2 daily spot price, series RNGWHHD (Henry Hub)',
  ),
  'commodities/metals/gold': commodity('lbma', 'gold', 'gold', 'USD/ozt', 'LBMA Gold Price PM auction, USD'),
  'commodities/metals/silver': commodity(
    'lbma',
    'silver',
    'silver',
    'USD/ozt',
    'LBMA Silver Price auction, USD',
  ),
  'commodities/metals/copper': commodity(
    'lme',
    'copper',
    'copper',
    'USD/t',
    'LME official copper cash seller & settlement price (LBMA does not price copper)',
  ),
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
