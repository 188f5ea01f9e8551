import { SESSION_COOKIE, paymentRequiredSchema, problemSchema } from '@meridian/contracts';
import { LEGACY_ROUTES } from '../domain/data-route.js';
import { dataQuerySchema, envelopeSchema, jsonSchemaOf } from '../domain/data-schemas.js';
import { accessOf } from '../route-table.js';
import { baseOf, categories, liveMetrics, metrics, pathOf, products } from './catalog-facts.js';
import { PORTAL_ROUTES } from './portal-routes.js';

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
        description: 'route_not_found, or not_yet_available for a planned metric',
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

function dataOperation(summary: string, pathParams: object[]) {
  const query = jsonSchemaOf(dataQuerySchema, 'input') as {
    properties: Record<string, { description?: string }>;
  };
  return {
    get: {
      summary,
      tags: ['data'],
      security: KEY_SECURITY,
      parameters: [
        ...pathParams,
        ...Object.entries(query.properties).map(([name, { description, ...schema }]) => ({
          name,
          in: 'query',
          required: false,
          description,
          schema,
        })),
      ],
      responses: {
        200: {
          description: 'The envelope',
          headers: rateHeaders,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
        },
        401: { $ref: '#/components/responses/Unauthorized' },
        402: { $ref: '#/components/responses/PaymentRequired' },
        403: { $ref: '#/components/responses/TierForbidden' },
        404: { $ref: '#/components/responses/NotFound' },
        429: { $ref: '#/components/responses/RateLimited' },
      },
    },
  };
}

function enumParam(name: string, values: string[]) {
  return { name, in: 'path', required: true, schema: { type: 'string', enum: values } };
}

function portalPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path, summary] of PORTAL_ROUTES) {
    const access = accessOf(path.replaceAll('{id}', 'x'));
    const open = access === 'anonymous' || access === 'public';
    paths[path] ??= {};
    paths[path][method] = {
      summary,
      tags: [path.startsWith('/auth') ? 'sign-in' : 'portal'],
      security: open
        ? [{}]
        : access === 'session_or_key'
          ? [...SESSION_SECURITY, ...KEY_SECURITY.slice(0, 2)]
          : SESSION_SECURITY,
      ...(path.includes('{id}')
        ? { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] }
        : {}),
      responses: {
        200: { description: 'The answer (envelope, or the plain body the portal document gives)' },
        ...(open ? {} : { 401: { $ref: '#/components/responses/Unauthorized' } }),
      },
    };
  }
  return paths;
}

function publicPaths(): Record<string, Record<string, unknown>> {
  const doc = (summary: string, type = 'application/json') => ({
    get: {
      summary,
      tags: ['public'],
      security: [{}],
      responses: { 200: { description: summary, content: { [type]: { schema: {} } } } },
    },
  });
  return {
    '/health': doc('Liveness'),
    '/v1/demo': doc('Public multi-category live snapshot, cached 60 s'),
    '/v1/catalog': doc('Every category, product and metric, live or planned'),
    '/v1/billing/prices': doc('Prices'),
    '/openapi.json': doc('This document'),
    '/llms.txt': doc('Plain-text orientation for language-model agents', 'text/plain'),
    '/.well-known/x402': doc('Manifest of every priced endpoint'),
    '/.well-known/mcp.json': doc('Agent descriptor (MCP server card)'),
  };
}

/** GET /openapi.json: OpenAPI 3.1, generated from the catalogue and the zod schemas. */
export function openApiDocument(publicBaseUrl?: string) {
  const legacy = Object.entries(LEGACY_ROUTES).map(([path, metric]) => [
    path,
    dataOperation(`Legacy route of /v1/data/${metric} (same resolver, same answer)`, []),
  ]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Meridian data API and audit portal',
      version: '2026-09',
      description:
        'Metric data with provenance (data-api-interface) and the audit portal (audit-portal-interface). Data calls take an API key or pay per call over x402 v2.',
    },
    servers: [{ url: baseOf(publicBaseUrl) || '/' }],
    tags: [{ name: 'data' }, { name: 'public' }, { name: 'sign-in' }, { name: 'portal' }],
    paths: {
      '/v1/data/{category}/{product}/{metric}': {
        ...dataOperation('Read a metric', [
          enumParam('category', categories()),
          enumParam('product', products()),
          enumParam('metric', metrics()),
        ]),
        'x-metrics': liveMetrics().map((h) => ({
          path: pathOf(h),
          value_shape: h.metric.value_shape,
          unit: h.metric.unit,
          min_plan: h.gate,
        })),
      },
      ...Object.fromEntries(legacy),
      ...publicPaths(),
      ...portalPaths(),
    },
    components: components(),
  };
}
