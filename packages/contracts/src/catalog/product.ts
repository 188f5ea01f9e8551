import type { Plan } from '../caller.js';
import type { Cadence } from './cadence.js';
import type { MetricEntry, ProductEntry } from './types.js';

interface MetricOptions {
  min_tier?: Plan;
  /** The metric's own cadence when it differs from the product's. */
  cadence?: Cadence;
  /** series=true answers the metric's history (see MetricEntry.series). */
  series?: boolean;
}

/** The metric answers its stored history with series=true. */
export const HISTORY: MetricOptions = { series: true };

type MetricSpec = [
  metric: string,
  shape: MetricEntry['value_shape'],
  unit: string,
  description: string,
  options?: MetricOptions,
];

function cadenceOf(cadence: Cadence): Pick<MetricEntry, 'cadence' | 'cadence_ms' | 'max_age_ms'> {
  return typeof cadence === 'string'
    ? { cadence }
    : { cadence: cadence.words, cadence_ms: cadence.ms, max_age_ms: cadence.maxAgeMs };
}

export function product(
  category: string,
  name: string,
  minTier: Plan,
  cadence: Cadence,
  sources: string[],
  entities: string[],
  metrics: MetricSpec[],
  planned: MetricSpec[] = [],
): ProductEntry {
  const entry =
    (status: MetricEntry['status']) =>
    ([metric, shape, unit, description, options = {}]: MetricSpec): MetricEntry => ({
      metric,
      value_shape: shape,
      unit,
      ...cadenceOf(options.cadence ?? cadence),
      status,
      min_tier: options.min_tier ?? minTier,
      series: shape === 'series' || options.series === true,
      description,
    });
  return {
    category,
    product: name,
    min_tier: minTier,
    sources,
    entities,
    metrics: [...metrics.map(entry('live')), ...planned.map(entry('planned'))],
  };
}
