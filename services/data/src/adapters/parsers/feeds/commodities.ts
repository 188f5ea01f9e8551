import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { observationBatch } from './observations.js';

const EIA_SERIES: Record<string, string> = { RWTC: 'wti_crude', RNGWHHD: 'natural_gas' };

/** EIA API v2 data answer: response.data[] of {period, series, value, units}. */
export function parseEiaSpot(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as {
    response: { data: { period: string; series: string; value: number; units: string }[] };
  };
  return observationBatch(
    'eia',
    doc.response.data.flatMap((d) => {
      const key = EIA_SERIES[d.series];
      if (!key) return [];
      return [
        {
          key,
          metric: 'commodity_spot',
          ts: clock(`${d.period}T00:00:00Z`),
          value: d.value,
          payload: { series: d.series, units: d.units },
        },
      ];
    }),
  );
}

/** LBMA price JSON: [{d: date, v: [USD, GBP, EUR]}]; `fixedAt` is the fix's UTC time of day. */
export function parseLbma(text: string, key: string, fixedAt: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { d: string; v: number[] }[];
  return observationBatch(
    'lbma',
    doc.map((p) => ({
      key,
      metric: 'commodity_spot',
      ts: clock(`${p.d}T${fixedAt}Z`),
      value: p.v[0]!,
      payload: { usd: p.v[0], gbp: p.v[1], eur: p.v[2] },
    })),
  );
}
