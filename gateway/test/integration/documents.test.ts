import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { allMetrics, CATALOG, LEGACY_ROUTES } from '@meridian/contracts';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { dataTarget, isPriced } from '../../src/domain/data-route.js';

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

  it('documents every data route, both key schemes and the problem shapes', async () => {
    const doc = (await request(gateway.handler).get('/openapi.json')).body as OpenAPIV3_1.Document;
    const data = doc.paths!['/v1/data/{category}/{product}/{metric}']!.get!;
    const params = data.parameters as OpenAPIV3_1.ParameterObject[];
    const categoryEnum = (params.find((p) => p.name === 'category')!.schema as { enum: string[] }).enum;
    expect(categoryEnum.sort()).toEqual([...new Set(CATALOG.map((p) => p.category))].sort());
    expect(params.map((p) => p.name)).toEqual(
      expect.arrayContaining(['entity', 'series', 'max_response_tokens']),
    );
    expect(Object.keys(data.responses!)).toEqual(['200', '401', '402', '403', '404', '429']);
    expect(doc.components!.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    expect(doc.components!.schemas).toHaveProperty('Envelope');
    expect(doc.components!.schemas).toHaveProperty('Problem');
    expect(doc.paths!['/v1/credits']!.get!.responses).toHaveProperty('401');
    expect(doc.paths!['/auth/login']!.post!.responses).not.toHaveProperty('401');
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
    expect(manifest.body.resources[0]).toMatchObject({
      resource: 'https://api.meridian.example/v1/data/crypto/spot/reference_price',
      price: { read: '10000', series: '20000' },
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
    });
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
    expect(listed.sort()).toEqual(candidates.filter((path) => isPriced(dataTarget(path))).sort());
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

  it('serves an agent descriptor that names no MCP endpoint or package before the server exists', async () => {
    const res = await request(gateway.handler).get('/.well-known/mcp.json');
    expect(res.body).toMatchObject({
      status: 'not_yet_available',
      transports: [],
      install: { status: 'not_yet_available', command: null },
      tools: { status: 'not_yet_available', planned: expect.arrayContaining(['get_metric']) },
      contact: expect.stringContaining('@'),
      catalog: { metrics: allMetrics().filter((h) => h.metric.status === 'live').length },
    });
    expect(res.text).not.toContain('/mcp"');
    expect(res.text).not.toContain('npx');
    const mcp = await request(gateway.handler).get('/mcp');
    expect(mcp.status).toBe(404);
  });

  it('gives the install command once one is configured', async () => {
    const withCommand = await createGateway({
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        AGENT_INSTALL_COMMAND: 'npx -y meridian-mcp@1',
      }),
      logger: createLogger('test', { level: 'silent' }),
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
    try {
      const res = await request(withCommand.handler).get('/.well-known/mcp.json');
      expect(res.body.install).toEqual({ status: 'available', command: 'npx -y meridian-mcp@1' });
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
