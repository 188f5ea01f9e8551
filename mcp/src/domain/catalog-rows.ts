/** One metric of `GET /v1/catalog` as browse_catalog lists it: a row an agent can act on. */
export interface CatalogRow {
  path: string;
  category: string;
  product: string;
  metric: string;
  status: string;
  min_tier: string;
  value_shape: string;
  unit: string;
  cadence: string;
  series: boolean;
  entities: string[];
  default_entity?: string;
  sources: string[];
  description: string;
}

export interface CatalogFilter {
  category?: string;
  product?: string;
  status?: string;
  min_tier?: string;
}

interface CatalogProduct {
  product: string;
  sources?: string[];
  entities?: string[];
  default_entity?: string;
  metrics?: Array<Record<string, unknown>>;
}

/** The rows of the catalogue document the data service answers, in its order, filtered. */
export function catalogRows(document: unknown, filter: CatalogFilter): CatalogRow[] {
  const categories =
    (document as { categories?: Array<{ category: string; products?: CatalogProduct[] }> } | undefined)
      ?.categories ?? [];
  const rows: CatalogRow[] = [];
  for (const c of categories) {
    if (filter.category && c.category !== filter.category) continue;
    for (const p of c.products ?? []) {
      if (filter.product && p.product !== filter.product) continue;
      for (const m of p.metrics ?? []) {
        if (filter.status && m.status !== filter.status) continue;
        if (filter.min_tier && m.min_tier !== filter.min_tier) continue;
        rows.push({
          path: String(m.path ?? `/v1/data/${c.category}/${p.product}/${String(m.metric)}`),
          category: c.category,
          product: p.product,
          metric: String(m.metric),
          status: String(m.status),
          min_tier: String(m.min_tier),
          value_shape: String(m.value_shape),
          unit: String(m.unit),
          cadence: String(m.cadence),
          series: m.series === true,
          entities: (m.entities as string[] | undefined) ?? p.entities ?? [],
          ...(p.default_entity !== undefined ? { default_entity: p.default_entity } : {}),
          sources: p.sources ?? [],
          description: String(m.description ?? ''),
        });
      }
    }
  }
  return rows;
}
