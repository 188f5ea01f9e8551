import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { allMetrics, findMetric, LEGACY_ROUTES, catalogFor, replayStatement } from '@meridian/contracts';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { dataTarget, isPriced } from '../../src/domain/data-route.js';

/** The catalogue of INGEST_MODE=replay, the default. */
const REPLAY = catalogFor('replay');

describe('public documents', () => {
  let bus: Bus;
  let gateway: Gateway;

  beforeAll(async () => {
    bus = createMemoryBus({ name: 'documents-test' });
    gateway = await createGateway({
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        PUBLIC_BASE_URL: 'https://api.meridian.example',
        X402_PAY_TO: 'PayTo1111',
        X402_FEE_PAYER: 'Fee1111',
      }),
      logger: createLogger('test', { level: 'silent' }),
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
  });

  afterAll(async () => {
    await gateway.close();
    await bus.close();
  });

  it('serves an OpenAPI 3.1 document that a maintained validator accepts', async () => {
    const res = await request(gateway.handler).get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as OpenAPIV3_1.Document;
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('documents each live metric at its own path with its entities, parameters and plan', async () => {
    const doc = (await request(gateway.handler).get('/openapi.json')).body as OpenAPIV3_1.Document;
    const paths = doc.paths!;
    expect(paths).not.toHaveProperty(['/v1/data/{category}/{product}/{metric}']);
    for (const hit of REPLAY.allMetrics()) {
      const path = `/v1/data/${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
      if (hit.metric.status === 'planned') {
        expect(paths).not.toHaveProperty([path]);
        continue;
      }
      const op = paths[path]!.get as OpenAPIV3_1.OperationObject & Record<string, unknown>;
      expect(op['x-min-plan']).toBe(hit.gate);
      const params = op.parameters as OpenAPIV3_1.ParameterObject[];
      // Exactly the values the data service accepts (the contracts' dataQuerySchema and resolveEntity).
      const schemaOf = (name: string) => params.find((p) => p.name === name)?.schema;
      const entities = hit.metric.entities ?? hit.product.entities;
      expect(schemaOf('entity')).toEqual({ type: 'string', enum: entities.length ? entities : [''] });
      expect(schemaOf('source')).toEqual({ type: 'string', enum: hit.product.sources });
      expect(params.some((p) => p.name === 'interval')).toBe(hit.metric.metric === 'ohlcv');
      expect(params.some((p) => p.name === 'cursor')).toBe(hit.metric.series);
      // The row filters only where the catalogue lists them (the options chain).
      const isChain = path === '/v1/data/crypto/options/chain';
      expect(params.some((p) => p.name === 'option_type')).toBe(isChain);
      expect(params.some((p) => p.name === 'expiry')).toBe(isChain);
      if (isChain) expect(schemaOf('option_type')).toEqual({ type: 'string', enum: ['call', 'put'] });
      const series =
        hit.metric.value_shape === 'series' ? ['true'] : hit.metric.series ? ['true', 'false'] : ['false'];
      expect(schemaOf('series')).toEqual({ type: 'string', enum: series });
      expect(Object.keys(op.responses!)).toEqual(
        hit.gate === 'free'
          ? ['200', '400', '401', '402', '404', '429']
          : ['200', '400', '401', '402', '403', '404', '429'],
      );
    }
    const ohlcv = paths['/v1/data/crypto/spot/ohlcv']!.get as OpenAPIV3_1.OperationObject;
    const params = ohlcv.parameters as OpenAPIV3_1.ParameterObject[];
    expect(params.find((p) => p.name === 'interval')!.schema).toMatchObject({
      enum: ['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1d'],
      default: '1m',
    });
    expect(params.find((p) => p.name === 'max_response_tokens')!.schema).toMatchObject({
      minimum: 1000,
      maximum: 100000,
    });
    expect(params.find((p) => p.name === 'entity')!.description).toContain('without source: BTC-USD only');
    const chain = paths['/v1/data/crypto/options/chain']!.get as Record<string, unknown>;
    expect(chain['x-min-plan']).toBe('pro');
    expect(paths['/v1/data/crypto/spot/trades']!.get).toMatchObject({ 'x-min-plan': 'basic' });
    for (const [legacy, key] of Object.entries(LEGACY_ROUTES)) {
      const live = findMetric(...(key.split('/') as [string, string, string]))!.metric.status === 'live';
      if (!live) expect(paths).not.toHaveProperty([legacy]);
      else expect(paths[legacy]!.get).toMatchObject({ 'x-alias-of': `/v1/data/${key}` });
    }
    const ids = Object.values(paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).flatMap((op) => op.operationId ?? []),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components!.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    expect(doc.components!.schemas).toHaveProperty('Envelope');
    expect(doc.components!.schemas).toHaveProperty('Problem');
  });

  it('documents the portal query parameters, request bodies and error statuses of the portal document', async () => {
    const paths = ((await request(gateway.handler).get('/openapi.json')).body as OpenAPIV3_1.Document).paths!;
    const query = (path: string) =>
      Object.fromEntries(
        (paths[path]!.get!.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => [p.name, p.schema]),
      );
    expect(query('/v1/credits')).toMatchObject({
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
      before: { type: 'integer', minimum: 1 },
    });
    expect(query('/v1/account/billing/history')).toMatchObject({
      cursor: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
      max_response_tokens: { type: 'integer', minimum: 500, maximum: 16000, default: 4000 },
    });
    const requests = paths['/v1/requests']!.post!;
    expect(requests.requestBody).toMatchObject({
      content: {
        'application/json': {
          schema: {
            properties: { kind: { enum: ['pentest', 'pentest_discussion', 'consultancy'] } },
            required: ['kind'],
          },
        },
      },
    });
    expect(requests.responses!['200']).toMatchObject({
      content: { 'application/json': { schema: { properties: { ok: {}, count: {} } } } },
    });
    const statuses = (path: string, method: 'get' | 'post') => Object.keys(paths[path]![method]!.responses!);
    expect(statuses('/v1/requests', 'post')).toEqual(['200', '400', '401']);
    expect(statuses('/v1/account/billing/history', 'get')).toEqual(['200', '400', '401']);
    // The spec's 201 and 400, and ours: a domain of another account (or none) is a 404.
    expect(statuses('/v1/audit/authorize', 'post')).toEqual(['201', '400', '401', '404']);
    // The spec's 402, and ours: a bad tier, and a purchase beyond what may be paid ahead.
    expect(statuses('/v1/audit/subscribe', 'post')).toEqual(['200', '400', '401', '402', '409']);
    expect(statuses('/v1/audit/authorization/revoke', 'post')).toEqual(['200', '401', '404']);
    expect(statuses('/v1/keys', 'post')).toEqual(['201', '401']);
    expect(statuses('/auth/login', 'post')).toEqual(['200']);
    expect(statuses('/auth/oauth/idp', 'get')).toEqual(['302']);
    expect(paths['/v1/audit/subscribe']!.post!.responses!['402']).toMatchObject({
      content: { 'application/problem+json': {} },
    });
    expect(paths['/v1/billing/account']!.get!.deprecated).toBe(true);
    expect(paths['/v1/billing/prices']!.get!.responses!['200']).toMatchObject({
      content: { 'application/json': { schema: { allOf: expect.any(Array) } } },
    });
  });

  it('serves llms.txt and the x402 manifest from the catalogue', async () => {
    const llms = await request(gateway.handler).get('/llms.txt');
    expect(llms.type).toBe('text/plain');
    expect(llms.text).toContain('crypto/options [pro]');
    expect(llms.text).toContain('trades (series, USD) [basic]');
    const manifest = await request(gateway.handler).get('/.well-known/x402');
    expect(manifest.body).toMatchObject({
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      payTo: 'PayTo1111',
    });
    const resources = manifest.body.resources as Array<{ resource: string; price: Record<string, string> }>;
    const priceOf = (path: string) =>
      resources.find((r) => r.resource === `https://api.meridian.example/v1/data/${path}`)?.price;
    expect(manifest.body.resources[0]).toMatchObject({
      resource: 'https://api.meridian.example/v1/data/crypto/spot/reference_price',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
    });
    // No series of the reference price exists, so none is priced; a series-shaped metric always is one.
    expect(priceOf('crypto/spot/reference_price')).toEqual({ read: '10000' });
    const inputOf = (path: string) =>
      (
        manifest.body.resources as Array<{
          resource: string;
          inputSchema: { properties: Record<string, unknown> };
        }>
      ).find((r) => r.resource === `https://api.meridian.example/v1/data/${path}`)!.inputSchema.properties;
    expect(inputOf('crypto/spot/reference_price')).not.toHaveProperty('series');
    expect(inputOf('crypto/spot/reference_price')).not.toHaveProperty('cursor');
    expect(inputOf('crypto/spot/trades')).toHaveProperty('cursor');
    expect(inputOf('crypto/options/chain')).toHaveProperty('option_type');
    expect(inputOf('crypto/options/chain')).toHaveProperty('expiry');
    expect(inputOf('crypto/options/open_interest')).not.toHaveProperty('option_type');
    expect(priceOf('crypto/spot/trades')).toEqual({ read: '20000', series: '20000' });
    expect(priceOf('crypto/etf_flows/net_flow')).toEqual({ read: '10000', series: '20000' });
    // Replay holds one point of a weather reading (each play replaces the last): no series is sold.
    expect(priceOf('weather/observations/temperature')).toEqual({ read: '10000' });
    expect(inputOf('weather/observations/temperature')).not.toHaveProperty('cursor');
  });

  it('lists in the x402 manifest exactly the paths the edge prices, legacy aliases included', async () => {
    const manifest = await request(gateway.handler).get('/.well-known/x402');
    const resources = manifest.body.resources as Array<{
      resource: string;
      alias_of?: string;
      price: { read: string };
    }>;
    const listed = resources.map((r) => new URL(r.resource).pathname);
    const candidates = [
      ...allMetrics().map((h) => `/v1/data/${h.product.category}/${h.product.product}/${h.metric.metric}`),
      ...Object.keys(LEGACY_ROUTES),
    ];
    expect(listed.sort()).toEqual(candidates.filter((path) => isPriced(dataTarget(path, REPLAY))).sort());
    expect(resources).toContainEqual(
      expect.objectContaining({
        resource: 'https://api.meridian.example/v1/range_24h',
        alias_of: 'https://api.meridian.example/v1/data/crypto/spot/range_24h',
      }),
    );
    expect(listed).not.toContain('/v1/spread');
    // What the manifest quotes is what a keyless call is asked to pay.
    for (const r of resources.filter((x) => x.alias_of)) {
      const res = await request(gateway.handler).get(new URL(r.resource).pathname);
      expect([res.status, res.body.accepts?.[0]?.amount]).toEqual([402, r.price.read]);
    }
  });

  it('says in every document, before payment, that this deployment replays and which products are samples', async () => {
    const said = (text: string) => {
      expect(text).toContain('This deployment serves replay');
      expect(text).toMatch(/Real recordings: crypto\/spot, crypto\/options, crypto\/futures\./);
      expect(text).toMatch(/Hand-written samples in the upstreams' formats: [^.]*weather\/observations/);
    };
    said((await request(gateway.handler).get('/openapi.json')).body.info.description);
    said((await request(gateway.handler).get('/llms.txt')).text);
    const manifest = (await request(gateway.handler).get('/.well-known/x402')).body;
    said(manifest.replay);
    const described = (path: string) =>
      manifest.resources.find((r: { resource: string }) => r.resource.endsWith(`/v1/data/${path}`))
        .description;
    expect(described('weather/observations/temperature')).toMatch(
      /\(replay of a hand-written sample, not a live print\)$/,
    );
    expect(described('crypto/spot/reference_price')).toMatch(
      /\(replay of a real recording, not a live print\)$/,
    );
    // The challenge a keyless caller gets names it too.
    const challenge = await request(gateway.handler).get('/v1/data/weather/observations/temperature');
    expect(challenge.status).toBe(402);
    expect(challenge.body.resource.description).toMatch(/hand-written sample, not a live print/);
    expect(replayStatement(catalogFor('live'))).toBeUndefined();
  });

  it('serves an agent descriptor naming the MCP endpoint, the install command and the tools', async () => {
    const res = await request(gateway.handler).get('/.well-known/mcp.json');
    const fromCheckout = 'npx -y pnpm@10 mcp --key <YOUR_API_KEY> --api-url https://api.meridian.example';
    expect(res.body).toMatchObject({
      status: 'available',
      protocol_version: '2025-11-25',
      transports: [
        { type: 'streamable-http', url: 'https://api.meridian.example/mcp' },
        { type: 'stdio', command: fromCheckout },
      ],
      // No package is published: no install command that cannot work is offered.
      install: { status: 'unavailable', from_checkout: fromCheckout },
      tools: {
        status: 'available',
        names: ['browse_catalog', 'get_metric', 'reference_price', 'ohlcv', 'recent_trades', 'option_chain'],
      },
      contact: expect.stringContaining('@'),
      catalog: { metrics: allMetrics().filter((h) => h.metric.status === 'live').length },
    });
  });

  it('gives the configured install command', async () => {
    const withCommand = await createGateway({
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        AGENT_INSTALL_COMMAND: 'npx -y meridian-mcp@1 mcp --key <KEY>',
      }),
      logger: createLogger('test', { level: 'silent' }),
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
    try {
      const res = await request(withCommand.handler).get('/.well-known/mcp.json');
      expect(res.body.install).toEqual({
        status: 'available',
        command: 'npx -y meridian-mcp@1 mcp --key <KEY>',
      });
    } finally {
      await withCommand.close();
    }
  });

  it('answers a CORS preflight and exposes the payment and rate-limit headers', async () => {
    const pre = await request(gateway.handler)
      .options('/v1/data/crypto/spot/reference_price')
      .set('origin', 'https://app.example')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'x-api-key');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-headers']).toContain('X-API-Key');
    const challenge = await request(gateway.handler)
      .get('/v1/data/crypto/spot/reference_price')
      .set('origin', 'https://app.example');
    expect(challenge.status).toBe(402);
    expect(challenge.headers['access-control-expose-headers']).toContain('PAYMENT-REQUIRED');
    const portal = await request(gateway.handler)
      .options('/v1/account')
      .set('origin', 'https://app.example')
      .set('access-control-request-method', 'GET');
    expect(portal.status).toBe(204);
  });
});
