import { catalogFor, higherPlan, type IngestMode } from '@meridian/contracts';

/**
 * A GET /v1/catalog answer as a data service of `mode` gives it (its fields the MCP edge reads):
 * the products of that mode's catalogue, each metric with its effective gate.
 */
export function catalogAnswer(mode: IngestMode) {
  const { products } = catalogFor(mode);
  return {
    data: {
      categories: [...new Set(products.map((p) => p.category))].map((category) => ({
        category,
        products: products
          .filter((p) => p.category === category)
          .map((p) => ({
            ...p,
            metrics: p.metrics.map((m) => ({ ...m, min_tier: higherPlan(p.min_tier, m.min_tier) })),
          })),
      })),
    },
    meta: { as_of: '2026-11-27T00:00:00.000Z', venues: [], staleness_ms: 0, confidence: 1 },
    provenance: { sources: [], method: `catalogFor(${mode})` },
  };
}
