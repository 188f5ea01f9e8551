import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createMemoryBus, type Bus } from '@meridian/bus';
import express from 'express';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';

const logger = createLogger('test', { level: 'silent' });
const KEY_LIKE = 'mk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL';

/** Keyless calls at the edge: nothing is sold for a question that has no answer, and every refusal is a problem. */
describe('the edge says what it means', () => {
  let data: RunningServer;
  let gateway: RunningServer;
  let bus: Bus;
  let edge: Gateway;
  let seen = 0;

  beforeAll(async () => {
    const app = createHttpApp({ logger, metrics: createMetrics('svc', { defaultMetrics: false }) });
    app.use(requireCaller(testAssertionKey), (_req, res) => {
      seen++;
      res.json({});
    });
    data = await startServer(finishApp(app), { port: 0 });
    const closed = await startServer(express(), { port: 0 });
    await closed.close();
    bus = createMemoryBus({ name: 'gateway-strict-test' });
    edge = await createGateway({
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        DATA_URL: data.url,
        IDENTITY_URL: closed.url,
        PUBLIC_BASE_URL: 'https://api.example',
        // No x402 service here: the challenge's fee payer is pinned instead of asked for.
        X402_FEE_PAYER: 'FeePayer1111111111111111111111111111111111',
      }),
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

  it('refuses an unknown parameter or an impossible combination with a 400 before any challenge', async () => {
    const before = seen;
    const typo = await fetch(`${gateway.url}/v1/data/crypto/spot/reference_price?entty=BTC-USDT`);
    expect(typo.status).toBe(400);
    expect(typo.headers.get('content-type')).toBe('application/problem+json');
    expect(((await typo.json()) as { detail: string }).detail).toContain('"entty"');
    const combination = await fetch(`${gateway.url}/v1/data/crypto/spot/ohlcv?entity=BTC-USDT`);
    expect(combination.status).toBe(400);
    expect(((await combination.json()) as { detail: string }).detail).toContain('add source=binanceus');
    expect(seen).toBe(before);
  });

  it('never echoes a credential put in the query', async () => {
    const res = await fetch(`${gateway.url}/v1/reference_price?entity=BTC-USD&api_key=${KEY_LIKE}`);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain(KEY_LIKE);
    const challenge = await fetch(`${gateway.url}/v1/reference_price?entity=BTC-USD`);
    expect(challenge.status).toBe(402);
    const body = (await challenge.json()) as { resource: { url: string } };
    expect(body.resource.url).toBe('https://api.example/v1/reference_price?entity=BTC-USD');
  });

  it('answers another method on a data path 405 with Allow, whatever the credential', async () => {
    const res = await fetch(`${gateway.url}/v1/data/crypto/spot/ohlcv`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const doc = await fetch(`${gateway.url}/openapi.json`, { method: 'DELETE' });
    expect([doc.status, doc.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('reads and drops a refused body within the limit, so the connection serves the next request (both paths)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const path = '/v1/data/crypto/spot/ohlcv';
    const refused = await exchange(
      gateway.url,
      agent,
      'POST',
      path,
      { 'content-length': '500000' },
      'x'.repeat(500_000),
    );
    expect([refused.status, refused.connection]).toEqual([405, 'keep-alive']);
    const next = await exchange(gateway.url, agent, 'GET', '/v1/catalog');
    expect([next.status, next.reused]).toEqual([200, true]);
    // A body of unknown length is not read: the connection closes after the answer.
    const chunked = await exchange(
      gateway.url,
      agent,
      'POST',
      path,
      { 'transfer-encoding': 'chunked' },
      '{}',
    );
    expect([chunked.status, chunked.connection]).toEqual([405, 'close']);
    // The same on the portal's path, refused before its body is read (no session).
    const portal = await exchange(
      gateway.url,
      agent,
      'POST',
      '/v1/keys',
      { 'content-length': '300000' },
      'x'.repeat(300_000),
    );
    expect([portal.status, portal.connection]).toEqual([401, 'keep-alive']);
    const reused = await exchange(gateway.url, agent, 'GET', '/v1/catalog');
    expect([reused.status, reused.reused]).toEqual([200, true]);
    const unbounded = await exchange(
      gateway.url,
      agent,
      'POST',
      '/v1/keys',
      { 'transfer-encoding': 'chunked' },
      '{}',
    );
    expect([unbounded.status, unbounded.connection]).toEqual([401, 'close']);
    agent.destroy();
  });

  it('treats a legacy path with a trailing slash as the metric, never as a portal path needing a session', async () => {
    const res = await fetch(`${gateway.url}/v1/ohlcv/`);
    expect(res.status).toBe(402);
    const unknown = await fetch(`${gateway.url}/v1/no-such-thing/`);
    expect(unknown.status).toBe(404);
  });

  it('answers header fields too large with a 431 problem+json body', async () => {
    const answer = await new Promise<{ status: number; type?: string; body: string }>((resolve, reject) => {
      const { port } = new URL(gateway.url);
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/v1/catalog', headers: { 'x-padding': 'x'.repeat(20_000) } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += String(c)));
          res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(answer.type).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 431, error_category: 'header_fields_too_large' });
  });
});

/** One request on `agent`: its status, its Connection field and whether it reused a socket. */
function exchange(
  url: string,
  agent: Agent,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; connection: string | undefined; reused: boolean }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, reused: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
