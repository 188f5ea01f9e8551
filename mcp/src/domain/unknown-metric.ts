import { CATALOG } from '@meridian/contracts';
import { pathOf, type MetricTarget } from './catalog-enums.js';
import { invalidArgument, type ToolError } from './tool-error.js';

/**
 * A category/product/metric combination the catalogue lacks (each part is in its enumeration,
 * the three together are not): `invalid_argument` listing what the product, or the category, has.
 */
export function unknownMetric(target: MetricTarget): ToolError {
  const product = CATALOG.find((p) => p.category === target.category && p.product === target.product);
  if (!product) {
    const products = CATALOG.filter((p) => p.category === target.category).map((p) => p.product);
    return invalidArgument(
      `${target.category}/${target.product} is not a product of the catalogue.`,
      products.length
        ? `Products of ${target.category}: ${products.join(', ')}.`
        : 'Call browse_catalog to list categories and products.',
    );
  }
  return invalidArgument(
    `${pathOf(target)} is not a metric of the catalogue.`,
    `Metrics of ${target.category}/${target.product}: ${product.metrics.map((m) => m.metric).join(', ')}.`,
  );
}
