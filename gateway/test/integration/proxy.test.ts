import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { INTERNAL_ASSERTION_HEADER } from '@meridian/contracts';
import { startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { fakeOwner, rawExchange, type OwnerSeen } from './proxy-peers.js';

const logger = createLogger('test', { level: 'silent' });

describe('gateway proxy', () => {
  const seen: OwnerSeen = { posted: 0, heldClosed: 0 };
  let data: RunningServer;
  let gateway: RunningServer;
  let closedPort: number;
  let bus: Bus;
  let edge: Gateway;

  beforeAll(async () => {
    data = await fakeOwner(seen);
    const doomed = await startServer(express(), { port: 0 });
    closedPort = doomed.port;
    await doomed.close();
    const config = parseConfig({
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      DATA_URL: data.url,
      IDENTITY_URL: `http://127.0.0.1:${closedPort}`,
      UPSTREAM_TIMEOUT_MS: '300',
      TRUST_PROXY: 'loopback',
      BODY_LIMIT_BYTES: '2048',
      BODY_TIMEOUT_MS: '500',
      MAX_IN_FLIGHT_PER_CLIENT: '4',
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
    gateway.server.on('checkContinue', edge.checkContinue);
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

  describe('data calls (the lean edge, over its undici pool)', () => {
    it('passes an answer on piece by piece, with the edge’s fields winning over the service’s', async () => {
      const res = await fetch(`${gateway.url}/v1/data/pieces`, { headers: { 'x-request-id': 'pieces-1' } });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('one,two,three');
      expect(res.headers.get('x-request-id')).toBe('pieces-1');
      expect(res.headers.get('x-seen-assertion')).toBe('yes');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('answers HEAD with the fields and no body', async () => {
      const answer = await rawExchange(
        gateway.url,
        'HEAD /v1/data/pieces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/x-seen-assertion: yes/i);
      expect(answer.split('\r\n\r\n')[1]).toBe('');
    });

    it('answers 504 when the data service does not answer in time', async () => {
      const started = Date.now();
      const res = await fetch(`${gateway.url}/v1/data/slow`);
      expect(res.status).toBe(504);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(await res.json()).toMatchObject({ error_category: 'gateway_timeout', retryable: true });
    });

    it('drops the request to the data service when the client leaves first', async () => {
      const before = seen.heldClosed;
      const aborted = new AbortController();
      const call = fetch(`${gateway.url}/v1/data/held`, { signal: aborted.signal }).catch(() => 'left');
      await new Promise((r) => setTimeout(r, 200));
      aborted.abort();
      expect(await call).toBe('left');
      const until = Date.now() + 1000;
      while (seen.heldClosed === before && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(seen.heldClosed).toBe(before + 1);
    });

    it('answers 503 retryable at once when the data service is down', async () => {
      const config = parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        DATA_URL: `http://127.0.0.1:${closedPort}`,
      });
      const down = await createGateway({
        config,
        logger,
        metrics: createMetrics('gateway', { defaultMetrics: false }),
        assertionKey: testAssertionKey,
        bus,
      });
      const server = await startServer(down.handler, { port: 0 });
      try {
        const started = Date.now();
        const res = await fetch(`${server.url}/v1/data/pieces`);
        expect(Date.now() - started).toBeLessThan(1000);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(await res.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
      } finally {
        await server.close();
        await down.close();
      }
    });
  });

  it('believes no X-Forwarded-For by default, not even from loopback', async () => {
    const config = parseConfig({ INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET, DATA_URL: data.url });
    const plain = await createGateway({
      config,
      logger,
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
    const server = await startServer(plain.handler, { port: 0 });
    try {
      const res = await fetch(`${server.url}/v1/catalog`, { headers: { 'x-forwarded-for': '203.0.113.50' } });
      expect(((await res.json()) as { forwarded: string }).forwarded).toBe('127.0.0.1');
    } finally {
      await server.close();
      await plain.close();
    }
  });

  it('reads a body whole at the edge and sends it on with its length, chunked or not', async () => {
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
        controller.enqueue(new TextEncoder().encode('"chunked"}'));
        controller.close();
      },
    });
    const res = await fetch(`${gateway.url}/v1/catalog`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ body: { name: 'chunked' }, contentLength: '18' });
  });

  it('refuses a body past the limit with 413, declared or as it arrives, before the service sees it', async () => {
    const before = seen.posted;
    const declared = await fetch(`${gateway.url}/v1/catalog`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(3000) }),
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ status: 413, error_category: 'payload_too_large' });
    const streamed = await rawExchange(
      gateway.url,
      'POST /v1/catalog HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      `bb8\r\n${'x'.repeat(3000)}\r\n0\r\n\r\n`,
    );
    expect(streamed).toMatch(/^HTTP\/1\.1 413 /);
    expect(seen.posted).toBe(before);
  });

  it('answers 408 to a body that stalls, and the service never sees the request', async () => {
    const before = seen.posted;
    const started = Date.now();
    const answer = await rawExchange(
      gateway.url,
      'POST /v1/catalog HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"error_category":"request_timeout"');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen.posted).toBe(before);
  });

  it('answers Expect: 100-continue itself, then sends the body on without the expectation or credentials', async () => {
    const body = '{"name":"continued"}';
    const answer = await rawExchange(
      gateway.url,
      'POST /v1/catalog HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n' +
        `Cookie: meridian_session=secret\r\nAuthorization: Bearer secret\r\nX-Forwarded-For: 198.51.100.9, 203.0.113.9\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
      { when: '100 Continue' },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n{') + 4)) as Record<string, unknown>;
    expect(json).toMatchObject({
      body: { name: 'continued' },
      expect: null,
      cookie: null,
      authorization: null,
      forwarded: '203.0.113.9',
    });
    const tooLarge = await rawExchange(
      gateway.url,
      'POST /v1/catalog HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 99999\r\n\r\n',
    );
    expect(tooLarge).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('holds at most MAX_IN_FLIGHT_PER_CLIENT requests of one address at once, and serves others meanwhile', async () => {
    const slow = Array.from({ length: 6 }, () =>
      fetch(`${gateway.url}/v1/demo`, { headers: { 'x-forwarded-for': '203.0.113.70' } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { error_category: string },
      })),
    );
    await new Promise((r) => setTimeout(r, 100));
    const other = await fetch(`${gateway.url}/v1/catalog`, {
      headers: { 'x-forwarded-for': '203.0.113.71' },
    });
    expect(other.status).toBe(200);
    const answers = await Promise.all(slow);
    expect(answers.filter((a) => a.status === 504)).toHaveLength(4);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(2);
    expect(refused[0]!.body.error_category).toBe('rate_limit');
    // Places are given back when the answers are done.
    expect(
      (await fetch(`${gateway.url}/v1/catalog`, { headers: { 'x-forwarded-for': '203.0.113.70' } })).status,
    ).toBe(200);
  });
});
