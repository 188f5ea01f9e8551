import { z } from 'zod';
import { PLANS } from '@meridian/contracts';

const names = z.array(z.string().min(1));

const servedMetric = z.looseObject({
  metric: z.string().min(1),
  status: z.enum(['live', 'planned']),
  min_tier: z.enum(PLANS),
  value_shape: z.string(),
  unit: z.string(),
  cadence: z.string(),
  series: z.boolean(),
  description: z.string(),
  entities: names.optional(),
  combined_entities: names.optional(),
});

const servedProduct = z.looseObject({
  product: z.string().min(1),
  min_tier: z.enum(PLANS),
  sources: names,
  entities: names,
  default_entity: z.string().optional(),
  venue_entities: z.record(z.string(), names).optional(),
  metrics: z.array(servedMetric),
});

/** The answer of GET /v1/catalog: what the deployment behind the gateway serves, in its mode. */
const catalogAnswer = z.looseObject({
  data: z.looseObject({
    categories: z
      .array(z.looseObject({ category: z.string().min(1), products: z.array(servedProduct) }))
      .min(1),
  }),
});

export type ServedProduct = z.infer<typeof servedProduct> & { category: string };

/**
 * The products of a catalogue answer, each with its category; throws with the first mismatch when
 * the body is not a catalogue (the tools would otherwise offer values nobody serves).
 */
export function servedProducts(body: unknown): ServedProduct[] {
  const parsed = catalogAnswer.safeParse(body);
  if (!parsed.success)
    throw new Error(`GET /v1/catalog answered no catalogue: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data.data.categories.flatMap((c) => c.products.map((p) => ({ ...p, category: c.category })));
}
