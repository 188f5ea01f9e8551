import type { Plan } from '../caller.js';
import type { Cadence } from './cadence.js';
import type { MetricEntry, ProductEntry } from './types.js';

interface MetricOptions {
  min_tier?: Plan;
  /** The metric's own cadence when it differs from the product's. */
  cadence?: Cadence;
  /** series=true answers the metric's history (see MetricEntry.series). */
  series?: boolean;
  /** MetricEntry.combined_entities. */
  combined_entities?: string[];
  /** MetricEntry.entities. */
  entities?: string[];
  /** MetricEntry.filters. */
  filters?: MetricEntry['filters'];
}

/** What a product says of its entities beyond the list (ProductEntry). */
type EntityOptions = Pick<ProductEntry, 'default_entity' | 'venue_entities' | 'licence'>;

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
  entityOptions: EntityOptions = {},
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
      ...(options.combined_entities ? { combined_entities: options.combined_entities } : {}),
      ...(options.entities ? { entities: options.entities } : {}),
      ...(options.filters ? { filters: options.filters } : {}),
      description,
    });
  return {
    category,
    product: name,
    min_tier: minTier,
    sources,
    entities,
    ...entityOptions,
    metrics: [...metrics.map(entry('live')), ...planned.map(entry('planned'))],
  };
}
