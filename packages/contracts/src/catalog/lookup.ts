import type { Plan } from '../caller.js';
import { PLANS } from '../caller.js';
import { CATALOG } from './products.js';
import type { CatalogHit } from './types.js';

export function planRank(plan: Plan): number {
  return PLANS.indexOf(plan);
}

export function higherPlan(a: Plan, b: Plan): Plan {
  return planRank(a) >= planRank(b) ? a : b;
}

const INDEX = new Map<string, CatalogHit>();
for (const p of CATALOG) {
  for (const m of p.metrics) {
    INDEX.set(`${p.category}/${p.product}/${m.metric}`, {
      product: p,
      metric: m,
      gate: higherPlan(p.min_tier, m.min_tier),
    });
  }
}

/** The catalogue entry of category/product/metric, or undefined when no such metric exists. */
export function findMetric(category: string, product: string, metric: string): CatalogHit | undefined {
  return INDEX.get(`${category}/${product}/${metric}`);
}

export function allMetrics(): CatalogHit[] {
  return [...INDEX.values()];
}

/** Whether a plan reaches a metric's gate (the higher of the product's and the metric's min_tier). */
export function planReaches(plan: Plan, hit: CatalogHit): boolean {
  return planRank(plan) >= planRank(hit.gate);
}
