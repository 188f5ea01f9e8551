import type { z } from 'zod';
import {
  DEFAULT_INTERVAL,
  FILTER_PARAMETERS,
  SESSION_COOKIE,
  paymentRequiredSchema,
  pricesSchema,
  problemSchema,
  type CatalogHit,
  type FilterParameter,
  type Catalog,
  replayStatement,
} from '@meridian/contracts';
import { dataQuerySchema, envelopeSchema, jsonSchemaOf, SERIES_PARAMETERS } from './data-schemas.js';
import { accessOf } from './route-table.js';
import { baseOf, pricedPaths } from './catalog-facts.js';
import { PORTAL_ROUTES, type PortalRoute } from './portal-routes.js';

const problemRef = { $ref: '#/components/schemas/Problem' };
const problemContent = { 'application/problem+json': { schema: problemRef } };
const rateHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
};
const KEY_SECURITY = [{ bearerAuth: [] }, { apiKeyHeader: [] }, {}];
const SESSION_SECURITY = [{ sessionCookie: [] }, { bearerAuth: [] }];

function intHeader(description: string) {
  return { description, schema: { type: 'integer', minimum: 0 } };
}

function components() {
  return {
    schemas: {
      Envelope: jsonSchemaOf(envelopeSchema),
      Problem: jsonSchemaOf(problemSchema),
      PaymentRequired: jsonSchemaOf(paymentRequiredSchema),
      Prices: jsonSchemaOf(pricesSchema),
    },
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'Data calls: the API key. Portal calls: the session token.',
      },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The API key' },
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'The portal session',
      },
    },
    headers: {
      'RateLimit-Limit': intHeader('Requests per minute of the key plan'),
      'RateLimit-Remaining': intHeader('Whole requests left in the bucket'),
      'RateLimit-Reset': intHeader('Seconds until the bucket is full again'),
      'RateLimit-Policy': {
        description: 'draft-ietf-httpapi-ratelimit-headers policy, e.g. "per-key";q=60;w=60',
        schema: { type: 'string' },
      },
      RateLimit: {
        description: 'draft-ietf-httpapi-ratelimit-headers state, e.g. "per-key";r=59;t=1',
        schema: { type: 'string' },
      },
    },
    responses: {
      BadRequest: {
        description: 'validation_failed: a parameter or the body is malformed or out of range',
        content: problemContent,
      },
      Unauthorized: {
        description: 'Missing or invalid credential (retryable false)',
        content: problemContent,
      },
      PaymentRequired: {
        description: 'No key and no valid payment: the x402 v2 challenge (also base64 in PAYMENT-REQUIRED)',
        headers: {
          'PAYMENT-REQUIRED': {
            description: 'base64 of the payment-required object',
            schema: { type: 'string' },
          },
        },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentRequired' } } },
      },
      TierForbidden: {
        description: 'tier_forbidden: the plan is below the metric gate; detail names the plan it needs',
        headers: rateHeaders,
        content: problemContent,
      },
      NotFound: {
        description: 'not_found (no data for this request right now), or not_yet_available',
        content: problemContent,
      },
      RateLimited: {
        description: 'rate_limit: per-minute budget spent (retryable true, retry_after)',
        headers: {
          ...rateHeaders,
          'Retry-After': intHeader('Seconds to wait'),
        },
        content: problemContent,
      },
    },
  };
}

interface Parameter {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

const FILTERS: ReadonlySet<string> = new Set(FILTER_PARAMETERS);

/** One query parameter per property of a zod object, with its bounds, default and description. */
function queryParameters(schema: z.ZodObject): Parameter[] {
  const json = jsonSchemaOf(schema, 'input') as {
    properties: Record<string, { description?: string } & Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(json.properties).map(([name, { description, ...rest }]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema: rest,
  }));
}

/**
 * The query parameters one metric takes, with exactly the values the data service accepts: the
 * entities it answers (the empty one where the product has none), its product's venues, interval
 * for OHLCV only, `series` with the values that have an answer, and the series-shaping parameters
 * only where a series answer exists, and the row filters (option_type, expiry) where the catalogue
 * lists them for the metric.
 */
function metricParameters(hit: CatalogHit): Parameter[] {
  const { sources } = hit.product;
  const { metric } = hit;
  return queryParameters(dataQuerySchema).flatMap((p): Parameter[] => {
    if (p.name === 'entity')
      return [{ ...p, ...combinedNote(hit, p), schema: { type: 'string', enum: entitiesOf(hit) } }];
    if (p.name === 'source')
      return sources.length ? [{ ...p, schema: { type: 'string', enum: sources } }] : [];
    if (p.name === 'interval') return metric.metric === 'ohlcv' ? [withDefault(p, DEFAULT_INTERVAL)] : [];
    if (p.name === 'series') return [{ ...p, schema: { type: 'string', enum: seriesValues(hit) } }];
    if (SERIES_PARAMETERS.has(p.name)) return metric.series ? [p] : [];
    if (FILTERS.has(p.name)) return metric.filters?.includes(p.name as FilterParameter) ? [p] : [];
    return [p];
  });
}

/** The entity values a metric answers: the product's (or the metric's own), or only the empty one. */
function entitiesOf(hit: CatalogHit): string[] {
  const entities = hit.metric.entities ?? hit.product.entities;
  return entities.length > 0 ? entities : [''];
}

/** Where the metric answers fewer entities without a source, the description says which. */
function combinedNote(hit: CatalogHit, p: Parameter): Pick<Parameter, 'description'> {
  const combined = hit.metric.combined_entities;
  if (!combined) return {};
  return {
    description: `${p.description ?? ''}; without source: ${combined.join(', ')} only (combined in USD)`,
  };
}

function seriesValues(hit: CatalogHit): string[] {
  if (hit.metric.value_shape === 'series') return ['true'];
  return hit.metric.series ? ['true', 'false'] : ['false'];
}

function withDefault(p: Parameter, value: string): Parameter {
  return { ...p, schema: { ...p.schema, default: value } };
}

const operationIdOf = (path: string) => path.replace(/^\/v1\//, '').replace(/[^A-Za-z0-9]+/g, '_');

/** The GET of one live metric, at its generic path or at a legacy alias of it. */
function metricOperation(hit: CatalogHit, path: string, aliasOf?: string) {
  const key = `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
  const gated = hit.gate !== 'free';
  return {
    get: {
      summary: aliasOf ? `${key} (legacy route; same resolver, same answer)` : key,
      description: `${hit.metric.description}. Unit ${hit.metric.unit}; ${hit.metric.value_shape}; ${hit.metric.cadence}. Needs the ${hit.gate} plan or higher, or a payment per call.`,
      operationId: aliasOf ? `legacy_${operationIdOf(path)}` : operationIdOf(path),
      tags: ['data'],
      security: KEY_SECURITY,
      parameters: metricParameters(hit),
      'x-min-plan': hit.gate,
      'x-value-shape': hit.metric.value_shape,
      'x-unit': hit.metric.unit,
      ...(aliasOf ? { 'x-alias-of': aliasOf } : {}),
      responses: {
        200: {
          description: 'The envelope',
          headers: rateHeaders,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
        },
        400: { $ref: '#/components/responses/BadRequest' },
        401: { $ref: '#/components/responses/Unauthorized' },
        402: { $ref: '#/components/responses/PaymentRequired' },
        ...(gated ? { 403: { $ref: '#/components/responses/TierForbidden' } } : {}),
        404: { $ref: '#/components/responses/NotFound' },
        429: { $ref: '#/components/responses/RateLimited' },
      },
    },
  };
}

/** One path per live metric, then each legacy alias of one (data-api-interface 4.1, 4.2). */
function dataPaths(catalog: Catalog): Record<string, unknown> {
  return Object.fromEntries(
    pricedPaths(catalog).map(({ path, hit, aliasOf }) => [path, metricOperation(hit, path, aliasOf)]),
  );
}

const problemResponse = (description: string) => ({ description, content: problemContent });

/** An envelope whose `data` has the given schema. */
function envelopeOf(data: object) {
  return {
    allOf: [{ $ref: '#/components/schemas/Envelope' }, { type: 'object', properties: { data } }],
  };
}

/** The success answer of a portal route, with its schema when the portal document gives one. */
function portalAnswer(route: PortalRoute) {
  if (route.status === 302)
    return { description: 'Redirect', headers: { Location: { schema: { type: 'string' } } } };
  if (!route.answer)
    return { description: 'The answer (the envelope, or the plain body the portal document gives)' };
  const schema = jsonSchemaOf(route.answer.schema);
  return route.answer.plain
    ? { description: 'The plain body the portal document gives', content: { 'application/json': { schema } } }
    : { description: 'The envelope', content: { 'application/json': { schema: envelopeOf(schema) } } };
}

function portalOperation(route: PortalRoute) {
  const access = accessOf(route.path.replaceAll('{id}', 'x'));
  const open = access === 'anonymous' || access === 'public';
  const parameters = [
    ...(route.path.includes('{id}')
      ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]
      : []),
    ...(route.query ? queryParameters(route.query) : []),
  ];
  const errors = Object.entries(route.errors ?? {}).map(([status, why]) => [status, problemResponse(why)]);
  return {
    summary: route.summary,
    tags: [route.path.startsWith('/auth') ? 'sign-in' : 'portal'],
    ...(route.deprecated ? { deprecated: true } : {}),
    security: open
      ? [{}]
      : access === 'session_or_key'
        ? [...SESSION_SECURITY, ...KEY_SECURITY.slice(0, 2)]
        : SESSION_SECURITY,
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      [
        [String(route.status ?? 200), portalAnswer(route)],
        ...errors,
        ...(open ? [] : [['401', { $ref: '#/components/responses/Unauthorized' }]]),
      ].sort(([a], [b]) => Number(a) - Number(b)),
    ),
  };
}

function portalPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of PORTAL_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = portalOperation(route);
  }
  return paths;
}

function publicPaths(): Record<string, Record<string, unknown>> {
  const doc = (summary: string, type = 'application/json', schema: object = {}) => ({
    get: {
      summary,
      tags: ['public'],
      security: [{}],
      responses: { 200: { description: summary, content: { [type]: { schema } } } },
    },
  });
  const prices = envelopeOf({ $ref: '#/components/schemas/Prices' });
  return {
    '/health': doc('Liveness'),
    '/v1/demo': doc('Public multi-category live snapshot, cached 60 s'),
    '/v1/catalog': doc('Every category, product and metric, live or planned'),
    '/v1/billing/prices': doc(
      'Plans with their limits and prices; x402 per-call prices',
      'application/json',
      prices,
    ),
    '/openapi.json': doc('This document'),
    '/llms.txt': doc('Plain-text orientation for language-model agents', 'text/plain'),
    '/.well-known/x402': doc('Manifest of every priced endpoint'),
    '/.well-known/mcp.json': doc('Agent descriptor (MCP server card)'),
  };
}

/**
 * GET /openapi.json: OpenAPI 3.1, generated from the catalogue of the data service's mode (its entity
 * enums are the markets that mode serves) and the zod schemas.
 */
export function openApiDocument(catalog: Catalog, publicBaseUrl?: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Meridian data API and audit portal',
      version: '2026-09',
      description: [
        'Metric data with provenance (data-api-interface) and the audit portal (audit-portal-interface). Data calls take an API key or pay per call over x402 v2. Each live metric has its own path (GET /v1/data/{category}/{product}/{metric} spelled out), with x-min-plan, the plan a key needs.',
        replayStatement(catalog),
      ]
        .filter(Boolean)
        .join(' '),
    },
    servers: [{ url: baseOf(publicBaseUrl) || '/' }],
    tags: [{ name: 'data' }, { name: 'public' }, { name: 'sign-in' }, { name: 'portal' }],
    paths: {
      ...dataPaths(catalog),
      ...publicPaths(),
      ...portalPaths(),
    },
    components: components(),
  };
}
