import { z } from 'zod';
import type { Plan } from '../caller.js';

/** The shape of a catalogue entry (data-api-interface 2.3, 4.2). */
export const valueShapeSchema = z.enum(['scalar', 'object', 'series']);
export const metricStatusSchema = z.enum(['live', 'planned']);

/**
 * Filters of a metric's rows: a metric takes those its catalogue entry lists in `filters` (the
 * options chain: option_type and expiry); any other metric refuses them.
 */
export const FILTER_PARAMETERS = ['option_type', 'expiry'] as const;
export type FilterParameter = (typeof FILTER_PARAMETERS)[number];

export interface MetricEntry {
  metric: string;
  value_shape: z.infer<typeof valueShapeSchema>;
  unit: string;
  cadence: string;
  /**
   * The cadence in numbers: time between two publications of the upstream, in ms (for an upstream that
   * changes continuously, between two of our polls). Absent only for a real-time tick metric.
   */
  cadence_ms?: number;
  /**
   * The age in ms past which the metric's newest value is overdue (see `overdueAfter`). The data
   * service reads it and no constant of its own: a venue this old is dropped as stale where several
   * venues combine, and meta.confidence scores a value this old 0.37 on freshness. Absent when cadence_ms is.
   */
  max_age_ms?: number;
  status: z.infer<typeof metricStatusSchema>;
  /** The metric's own gate; the effective gate is the higher of this and the product's. */
  min_tier: Plan;
  /**
   * Whether `series=true` has an answer (a history of the metric); true for every series-shaped metric.
   * The data service refuses series=true on the others, and the gateway prices it as a series read only here.
   */
  series: boolean;
  /**
   * The entities the metric answers without a `source` (combined across venues), when fewer than the
   * product's: a venue's own market (BTC-USDT) is answered only with `source=` a venue listing it.
   */
  combined_entities?: string[];
  /** The only entities the metric answers at all, when fewer than the product's (with a source or not). */
  entities?: string[];
  /**
   * The row filters the metric takes (FILTER_PARAMETERS: `option_type`, `expiry`);
   * absent where it takes none, and then the data service refuses them (400).
   */
  filters?: FilterParameter[];
  description: string;
}

export interface ProductEntry {
  category: string;
  product: string;
  min_tier: Plan;
  /** Venues or upstream sources the product draws on. */
  sources: string[];
  /** Entity identifiers the product offers; empty for metrics with no entity. */
  entities: string[];
  /** The entity a query that names none is answered for; absent where no entity means all of them. */
  default_entity?: string;
  /** Per venue, the entities it lists, when a venue does not list them all (spot books). */
  venue_entities?: Record<string, string[]>;
  /** What the sources' licence or terms allow, where they restrict use (non-commercial, unofficial). */
  licence?: string;
  metrics: MetricEntry[];
}

export interface CatalogHit {
  product: ProductEntry;
  metric: MetricEntry;
  /** The higher of the product's and the metric's min_tier. */
  gate: Plan;
}

/**
 * How the data service fills its store (`INGEST_MODE`): `replay` plays the recordings, `live` polls the
 * upstreams, `off` stores only what is ingested. The data service, the gateway and the MCP edge read the
 * same setting, so /v1/catalog, the gateway's checks before a challenge and the ingestion's refusals agree.
 */
export const INGEST_MODES = ['live', 'replay', 'off'] as const;
export type IngestMode = (typeof INGEST_MODES)[number];

/** The catalogue one mode serves, with its lookups. */
export interface Catalog {
  mode: IngestMode;
  products: readonly ProductEntry[];
  /** The entry of category/product/metric, or undefined when no such metric exists. */
  findMetric(category: string, product: string, metric: string): CatalogHit | undefined;
  allMetrics(): CatalogHit[];
  /** The entities of category/product ([] when no such product). */
  entitiesOf(category: string, product: string): string[];
}
