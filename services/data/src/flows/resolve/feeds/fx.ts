import type { DataDeps } from '../../../deps.js';
import { change24hRow, dayOf, pointsOf } from '../../../domain/feeds/computations.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

/** fx/spot: the ECB reference rates, from the ECB's own eurofxref files. */
export const fxResolvers: Record<string, MetricResolver<DataDeps>> = {
  'fx/spot/reference_rate': latestResolver({
    source: 'ecb',
    file: 'eurofxref',
    metric: 'fx_reference_rate',
    key: (e) => e!,
    defaultEntity: 'EUR-USD',
    unit: 'rate',
    method:
      'ECB reference rates: the euro foreign exchange reference rate published by the European Central Bank (eurofxref), fixed about 16:00 CET, for information purposes only; GBP-USD and USD-JPY are crossed through the euro: USD/GBP and JPY/USD. Source: ECB.',
    object: ([o], entity) => ({
      pair: entity,
      rate: o!.value,
      fixing_day: dayOf(o!.ts),
      cross: o!.payload.cross,
    }),
  }),
  'fx/spot/change_24h': latestResolver({
    source: 'ecb',
    file: 'eurofxref',
    metric: 'fx_reference_rate',
    key: (e) => e!,
    defaultEntity: 'EUR-USD',
    unit: 'percent',
    take: 5,
    method:
      'ECB reference rates: percent change of the rate from the previous fixing at least 20 h older (the previous business day) to the newest.',
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
