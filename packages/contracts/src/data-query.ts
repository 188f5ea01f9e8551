import { z } from 'zod';
import { FILTER_PARAMETERS, type CatalogHit, type FilterParameter } from './catalog/types.js';

/** OHLCV intervals (data-api-interface 4.1): 1s and 1m native, the others rolled up. */
export const DATA_INTERVALS = ['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;
export type DataInterval = (typeof DATA_INTERVALS)[number];
/** The interval of an OHLCV query that names none; a cursor is the same whether it is written or not. */
export const DEFAULT_INTERVAL: DataInterval = '1m';
/**
 * Bounds of max_response_tokens (the spec leaves them to us: data service README). The minimum is
 * what every answer can honour: the envelope with one row of the widest series, or the largest
 * answer that has no rows to drop, stays under 4 characters a token (tests hold every metric to it).
 */
export const MAX_RESPONSE_TOKENS = { min: 1000, max: 100_000 } as const;

/** The option types of crypto/options/chain's `option_type` filter, as the chain rows spell them. */
export const OPTION_TYPES = ['call', 'put'] as const;

const EXPIRY_FORMAT =
  "a date YYYY-MM-DD: the UTC day of the options' expiry (the day of the chain rows' expiry)";

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
const isCalendarDate = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
};

/** The parameters only a series answer takes; `series` itself asks for one. */
export const SERIES_SHAPING_PARAMETERS = ['fields', 'format', 'cursor', 'max_response_tokens'] as const;

/**
 * Query parameters of the data endpoint (data-api-interface 4.1): the one definition the data
 * service parses with, the gateway checks names with, and the OpenAPI document lists. Any other
 * parameter is refused (400 naming it).
 */
export const dataQuerySchema = z.object({
  entity: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Instrument, market, league, city or topic; depends on the product; empty for metrics with no entity',
    ),
  source: z
    .string()
    .regex(/^[a-z0-9_]{1,40}$/, 'a venue identifier such as binanceus')
    .optional()
    .describe('Restrict to one venue; omit for the combined cross-venue value'),
  series: z
    .enum(['true', 'false'], { message: 'true or false' })
    .transform((v) => v === 'true')
    .optional()
    .describe('true requests a time-series read (priced higher)'),
  interval: z
    .enum(DATA_INTERVALS, { message: `one of ${DATA_INTERVALS.join(', ')}` })
    .optional()
    .describe('OHLCV only: 1s and 1m native (default 1m), the others rolled up exactly at query time'),
  fields: z
    .string()
    .max(500)
    .transform((f) =>
      f
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((f) => f.length > 0, 'at least one column')
    .optional()
    .describe('Series only: comma-separated allowlist of columns'),
  format: z
    .enum(['table', 'json'], { message: 'table or json' })
    .optional()
    .describe('Series only: table answers columnar {columns, rows}; json (default) an array of objects'),
  option_type: z
    .enum(OPTION_TYPES, { message: 'call or put' })
    .optional()
    .describe('crypto/options/chain only: keep the calls or the puts (call or put)'),
  expiry: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, EXPIRY_FORMAT)
    .refine(isCalendarDate, EXPIRY_FORMAT)
    .optional()
    .describe(
      "crypto/options/chain only: keep the options expiring on this UTC day, a date YYYY-MM-DD (the day of the rows' expiry)",
    ),
  cursor: z.string().min(1).max(2048).optional().describe('Series only: opaque cursor from meta.next_cursor'),
  max_response_tokens: z.coerce
    .number()
    .int()
    .min(MAX_RESPONSE_TOKENS.min)
    .max(MAX_RESPONSE_TOKENS.max)
    .optional()
    .describe('Series only: truncate to whole rows'),
});

export type DataQueryInput = z.infer<typeof dataQuerySchema>;

/** The names of dataQuerySchema, for a check of names alone (the gateway's, before a challenge). */
export const DATA_QUERY_PARAMETERS: readonly string[] = Object.keys(dataQuerySchema.shape);

/** Why a query's entity and source cannot be served together, with what would work. */
export interface QueryRefusal {
  /** `query.entity` or `query.source`. */
  path: string;
  message: string;
}

const list = (values: readonly string[]) => values.join(', ');

/** The venue of the product whose own markets list `entity`. */
export function venuesListing(hit: CatalogHit, entity: string): string[] {
  const markets = hit.product.venue_entities ?? {};
  return Object.keys(markets).filter((venue) => markets[venue]!.includes(entity));
}

/**
 * Venues the data service holds data of beyond the catalogue's (a venue's book stored through
 * ingestion before the catalogue names it), with the entities each lists.
 */
export type StoredVenues = Readonly<Record<string, readonly string[]>>;

function sourceRefusal(hit: CatalogHit, source: string, stored: StoredVenues): QueryRefusal | undefined {
  const { category, product } = hit.product;
  const sources = [...new Set([...hit.product.sources, ...Object.keys(stored)])];
  if (sources.includes(source)) return undefined;
  return {
    path: 'query.source',
    message: `'${source}' is not a source of ${category}/${product}; allowed: ${list(sources)}, or omit source for the combined value`,
  };
}

/** An entity outside the product's list, or the empty entity where the product has entities. */
function entityRefusal(hit: CatalogHit, entity: string): QueryRefusal | undefined {
  const { entities, category, product } = hit.product;
  if (entity === '' && entities.length === 0) return undefined;
  if (entities.length === 0)
    return {
      path: 'query.entity',
      message: `${category}/${product} takes no entity; omit it or leave it empty`,
    };
  if (entities.includes(entity)) return undefined;
  const shown = entity === '' ? 'an empty entity' : `'${entity}'`;
  return {
    path: 'query.entity',
    message: `${shown} is not an entity of ${category}/${product}; allowed: ${list(entities)}`,
  };
}

/**
 * An entity the metric does not price (its own `entities`: the price is in USD whatever venues
 * `source` narrows to), one the named venue does not list, or one the metric does not answer
 * across venues.
 */
function combinationRefusal(
  hit: CatalogHit,
  entity: string,
  source: string | undefined,
  stored: StoredVenues,
): QueryRefusal | undefined {
  const key = `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
  const own = hit.metric.entities;
  if (own)
    return own.includes(entity)
      ? undefined
      : {
          path: 'query.entity',
          message: `${key} answers ${list(own)} only (source= narrows the venues, not the entity); ${entity} is not priced by this metric`,
        };
  const listed = source !== undefined ? (hit.product.venue_entities?.[source] ?? stored[source]) : undefined;
  if (listed && !listed.includes(entity)) {
    const venues = venuesListing(hit, entity);
    return {
      path: 'query.entity',
      message: `source ${source} lists ${list(listed)}, not ${entity}${venues.length ? `; ${entity} is listed by ${list(venues)}` : ''}`,
    };
  }
  const combined = hit.metric.combined_entities;
  if (source !== undefined || !combined || combined.includes(entity)) return undefined;
  const venues = venuesListing(hit, entity);
  return {
    path: 'query.entity',
    message: `${key} without a source answers ${list(combined)} (combined across venues in USD); ${entity} is one venue's own market: add source=${venues.join(' or source=')}`,
  };
}

/**
 * The entity a data query resolves to (the product's default when the query names none; case as
 * the catalogue spells it), or why the catalogue cannot serve the entity, source and metric
 * together. The catalogue (default_entity, venue_entities, combined_entities) is what /v1/catalog
 * publishes, so a refusal never contradicts it; `stored` adds the venues stored beyond it.
 */
export function resolveEntity(
  hit: CatalogHit,
  entity: string | undefined,
  source: string | undefined,
  stored: StoredVenues = {},
): { ok: true; entity: string | undefined } | { ok: false; refusal: QueryRefusal } {
  if (source !== undefined) {
    const refusal = sourceRefusal(hit, source, stored);
    if (refusal) return { ok: false, refusal };
  }
  const spelt =
    entity === undefined
      ? undefined
      : (hit.product.entities.find((e) => e.toLowerCase() === entity.toLowerCase()) ?? entity);
  if (spelt !== undefined) {
    const refusal = entityRefusal(hit, spelt);
    if (refusal) return { ok: false, refusal };
  }
  const chosen = spelt === undefined || spelt === '' ? hit.product.default_entity : spelt;
  if (chosen !== undefined) {
    const refusal = combinationRefusal(hit, chosen, source, stored);
    if (refusal) return { ok: false, refusal };
  }
  return { ok: true, entity: chosen };
}

/**
 * Parameters the metric has no answer for: `series=true` where it has no history, `series=false`
 * on a series-only metric, `interval` anywhere but OHLCV, a filter the metric does not list. Refused rather than silently answered as
 * something else than what was asked.
 */
export function parameterRefusal(
  hit: CatalogHit,
  query: Pick<DataQueryInput, 'series' | 'interval'> & Partial<Pick<DataQueryInput, FilterParameter>>,
): QueryRefusal | undefined {
  const key = `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
  for (const name of FILTER_PARAMETERS)
    if (query[name] !== undefined && !(hit.metric.filters ?? []).includes(name))
      return {
        path: `query.${name}`,
        message: `${key} takes no ${name} filter; ${name} filters crypto/options/chain (GET /v1/catalog lists each metric's filters)`,
      };
  if (query.series === true && !hit.metric.series)
    return {
      path: 'query.series',
      message: `${key} has no series answer; omit series (GET /v1/catalog says which metrics offer one)`,
    };
  if (query.series === false && hit.metric.value_shape === 'series')
    return { path: 'query.series', message: `${key} answers a series only; omit series or set series=true` };
  if (query.interval !== undefined && hit.metric.metric !== 'ohlcv')
    return { path: 'query.interval', message: 'interval applies to OHLCV only' };
  return undefined;
}

/** The query parameters a metric takes: every one of the data query but the row filters its entry does not list. */
export function queryParametersOf(hit: CatalogHit): string[] {
  return Object.keys(dataQuerySchema.shape).filter(
    (name) =>
      !(FILTER_PARAMETERS as readonly string[]).includes(name) ||
      hit.metric.filters?.includes(name as FilterParameter),
  );
}
