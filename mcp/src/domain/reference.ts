import { byCodeUnits } from '@meridian/contracts';
import type { ServedProduct } from './served-catalog.js';

/**
 * The reference resources of data-api-interface 4.6 (catalog, symbols, venues), built from the
 * catalogue the deployment serves: slow-moving, they change with a deploy or a change of mode.
 */
export function catalogResource(products: readonly ServedProduct[]) {
  return {
    categories: [...new Set(products.map((p) => p.category))].map((category) => ({
      category,
      products: products
        .filter((p) => p.category === category)
        .map((p) => ({
          product: p.product,
          min_tier: p.min_tier,
          metrics: p.metrics.map((m) => ({
            metric: m.metric,
            path: `/v1/data/${category}/${p.product}/${m.metric}`,
            status: m.status,
            // The served catalogue gives each metric its effective gate already.
            min_tier: m.min_tier,
            value_shape: m.value_shape,
            unit: m.unit,
            cadence: m.cadence,
            series: m.series,
            description: m.description,
          })),
        })),
    })),
  };
}

/** Entities (symbols) per product, with the default and what each venue lists. */
export function symbolsResource(products: readonly ServedProduct[]) {
  return {
    products: products.map((p) => ({
      category: p.category,
      product: p.product,
      entities: p.entities,
      ...(p.default_entity !== undefined ? { default_entity: p.default_entity } : {}),
      ...(p.venue_entities !== undefined ? { venue_entities: p.venue_entities } : {}),
      ...Object.fromEntries(
        p.metrics
          .filter((m) => m.entities || m.combined_entities)
          .map((m) => [
            `metric:${m.metric}`,
            {
              ...(m.entities ? { entities: m.entities } : {}),
              ...(m.combined_entities ? { combined_entities: m.combined_entities } : {}),
            },
          ]),
      ),
    })),
  };
}

/** Venues and upstream sources, with the products each serves and the markets it lists. */
export function venuesResource(products: readonly ServedProduct[]) {
  const venues = new Map<string, Array<{ path: string; entities: string[] }>>();
  for (const p of products)
    for (const venue of p.sources)
      venues.set(venue, [
        ...(venues.get(venue) ?? []),
        { path: `${p.category}/${p.product}`, entities: p.venue_entities?.[venue] ?? p.entities },
      ]);
  return {
    venues: [...venues]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([venue, products]) => ({ venue, products })),
  };
}
