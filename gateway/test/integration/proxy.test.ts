import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { INTERNAL_ASSERTION_HEADER } from '@meridian/contracts';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';

const logger = createLogger('test', { level: 'silent' });

/** A service behind the gateway: answers who the gateway says the caller is. */
async function fakeOwner(): Promise<RunningServer> {
  const app = createHttpApp({ logger, metrics: createMetrics('svc', { defaultMetrics: false }) });
  const routes = express.Router();
  routes.get('/v1/catalog', (req, res) => {
    res.json({
      caller: req.caller,
      forwarded: req.header('x-forwarded-for') ?? null,
      ip: req.ip,
      cookie: req.header('cookie') ?? null,
      authorization: req.header('authorization') ?? null,
      requestId: req.header('x-request-id') ?? null,
      traceparent: req.header('traceparent') ?? null,
    });
  });
  routes.get('/v1/demo', async () => {
    await new Promise((r) => setTimeout(r, 2000));
  });
  app.use(requireCaller(testAssertionKey), routes);
  return startServer(finishApp(app), { port: 0 });
}

describe('gateway proxy', () => {
  let data: RunningServer;
  let gateway: RunningServer;
  let closedPort: number;
  let bus: Bus;
  let edge: Gateway;

  beforeAll(async () => {
    data = await fakeOwner();
    const doomed = await startServer(express(), { port: 0 });
    closedPort = doomed.port;
    await doomed.close();
    const config = parseConfig({
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      DATA_URL: data.url,
      IDENTITY_URL: `http://127.0.0.1:${closedPort}`,
      UPSTREAM_TIMEOUT_MS: '300',
    });
    bus = createMemoryBus({ name: 'gateway-test' });
    edge = await createGateway({
      config,
      logger,
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
    gateway = await startServer(edge.handler, { port: 0 });
  });

  afterAll(async () => {
    await gateway.close();
    await edge.close();
    await bus.close();
    await data.close();
  });

  it('serves its own health', async () => {
    const res = await fetch(`${gateway.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', service: 'gateway' });
  });

  it('forwards one client address, never the chain a client wrote, and no credentials to non-identity services', async () => {
    const res = await fetch(`${gateway.url}/v1/catalog`, {
      headers: {
        'x-forwarded-for': '198.51.100.1, 203.0.113.50',
        cookie: 'meridian_session=secret-session',
        authorization: 'Bearer secret-session',
      },
    });
    const body = (await res.json()) as Record<string, unknown>;
    // The gateway's peer is loopback (trusted), so the rightmost untrusted address is the client.
    expect(body.forwarded).toBe('203.0.113.50');
    expect(body.ip).toBe('203.0.113.50');
    expect(body.cookie).toBeNull();
    expect(body.authorization).toBeNull();
  });

  it("carries the gateway's request id and trace to the service, the gateway's span as parent", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${gateway.url}/v1/catalog`, {
      headers: { 'x-request-id': 'trace-me-1', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const body = (await res.json()) as { requestId: string; traceparent: string };
    expect(body.requestId).toBe('trace-me-1');
    const [, sentTrace, parentSpan] = body.traceparent.split('-');
    expect(sentTrace).toBe(traceId);
    expect(parentSpan).not.toBe('00f067aa0ba902b7');
  });

  it('proxies an owned path with a signed assertion and drops a client-sent one', async () => {
    const res = await fetch(`${gateway.url}/v1/catalog`, {
      headers: { [INTERNAL_ASSERTION_HEADER]: 'forged', 'x-request-id': 'abc-1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('abc-1');
    const body = (await res.json()) as { caller: unknown };
    expect(body.caller).toEqual({
      account_id: null,
      plan: null,
      auth: 'anonymous',
      key_id: null,
      session_id: null,
    });
  });

  it('answers a path no service owns with a routing 404 problem', async () => {
    const res = await fetch(`${gateway.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(((await res.json()) as { error_category: string }).error_category).toBe('route_not_found');
  });

  it('answers 503 retryable at once when the owning service is down', async () => {
    const started = Date.now();
    const res = await fetch(`${gateway.url}/auth/providers`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 503, error_category: 'service_unavailable', retryable: true });
    expect(String(body.detail)).toContain('identity');
  });

  it('answers 504 when the owning service does not answer in time', async () => {
    const res = await fetch(`${gateway.url}/v1/demo`);
    expect(res.status).toBe(504);
    expect(((await res.json()) as { retryable: boolean }).retryable).toBe(true);
  });
});
