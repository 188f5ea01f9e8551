import type { DataDeps } from '../../deps.js';
import { change24hRow, dayOf, pointsOf } from '../../domain/feeds/computations.js';
import type { MetricResolver } from '../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

/** fx/spot: the ECB reference rates through Frankfurter. */
export const fxResolvers: Record<string, MetricResolver<DataDeps>> = {
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
