import { describe, expect, it } from '@jest/globals';
import { connect, createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import { z } from 'zod';
import { createLogger, createMetrics } from '@meridian/observability';
import { createHttpApp, envelope, finishApp, httpProblem, parseInput, startServer } from '../src/index.js';

function logSink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}

let release: () => void = () => {};

function testApp() {
  const sink = logSink();
  const app = createHttpApp({
    logger: createLogger('test', { destination: sink.stream }),
    metrics: createMetrics('test', { defaultMetrics: false }),
    jsonLimit: '1kb',
  });
  app.post('/echo', (req, res) => {
    const body = parseInput(z.object({ name: z.string().min(2), age: z.number().int() }), req.body);
    res.json(envelope(body));
  });
  app.get('/boom', () => {
    throw new Error('select * from secrets where password = hunter2');
  });
  app.get('/slow', async (_req, res) => {
    await new Promise<void>((r) => (release = r));
    res.json({ done: true });
  });
  // A real refused connection, as a pool gets while its database restarts.
  app.get('/database-down', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    await new Promise((_resolve, reject) => connect(port, '127.0.0.1').once('error', reject));
  });
  app.get('/refuse', () => {
    throw httpProblem('rate_limit', 'slow down', { retryAfter: 7 });
  });
  return { app: finishApp(app), sink };
}

describe('http app factory', () => {
  it('answers with the envelope, a request id, a traceparent and security headers', async () => {
    const { app } = testApp();
    const res = await request(app).post('/echo').send({ name: 'ada', age: 36 }).expect(200);
    expect(res.body.data).toEqual({ name: 'ada', age: 36 });
    expect(res.body.meta).toMatchObject({ venues: [], staleness_ms: 0, confidence: 1 });
    expect(typeof res.body.meta.as_of).toBe('string');
    expect(res.body.provenance.sources).toEqual([]);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('continues the caller trace and keeps its request id', async () => {
    const { app } = testApp();
    const traceId = 'ab'.repeat(16);
    const res = await request(app)
      .post('/echo')
      .set('traceparent', `00-${traceId}-${'cd'.repeat(8)}-01`)
      .set('x-request-id', 'req-42')
      .send({ name: 'ada', age: 1 });
    expect(res.headers['x-request-id']).toBe('req-42');
    expect(res.headers['traceparent']).toContain(traceId);
  });

  it('names every bad field in a 400 problem', async () => {
    const { app } = testApp();
    const res = await request(app).post('/echo').send({ name: 'a', age: 'x' }).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, error_category: 'validation_failed', retryable: false });
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.age', 'body.name']);
    expect(res.body.type).toBe('https://meridian.example/errors/validation_failed');
  });

  it('refuses malformed JSON and oversized bodies with problems', async () => {
    const { app } = testApp();
    const bad = await request(app).post('/echo').set('content-type', 'application/json').send('{"name":');
    expect(bad.status).toBe(400);
    expect(bad.body.error_category).toBe('bad_request');
    const big = await request(app)
      .post('/echo')
      .send({ name: 'x'.repeat(5000), age: 1 });
    expect(big.status).toBe(413);
    expect(big.body.error_category).toBe('payload_too_large');
  });

  it('turns anything thrown into a 500 problem with no message, stack or SQL', async () => {
    const { app, sink } = testApp();
    const res = await request(app).get('/boom').expect(500);
    expect(res.body).toEqual({
      type: 'https://meridian.example/errors/internal',
      title: 'Internal error',
      status: 500,
      detail: 'The server failed to answer this request.',
      error_category: 'internal',
      retryable: false,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|select|at /);
    expect(sink.lines.join('')).toContain('unhandled error');
  });

  it('answers 503 (retryable) when a server it depends on cannot be reached, e.g. its database restarting', async () => {
    const { app, sink } = testApp();
    const res = await request(app).get('/database-down').expect(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ status: 503, error_category: 'service_unavailable', retryable: true });
    expect(sink.lines.join('')).toContain('a dependency is unavailable');
    expect(sink.lines.join('')).not.toContain('unhandled error');
  });

  it('carries retry_after and Retry-After on a retryable refusal', async () => {
    const { app } = testApp();
    const res = await request(app).get('/refuse').expect(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body).toMatchObject({ error_category: 'rate_limit', retryable: true, retry_after: 7 });
  });

  it('answers an unknown path with a routing 404 distinct from not_yet_available', async () => {
    const { app } = testApp();
    const res = await request(app).get('/nowhere').expect(404);
    expect(res.body.error_category).toBe('route_not_found');
    expect(res.body.type).not.toContain('not_yet_available');
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish and refuses new connections', async () => {
    const { app } = testApp();
    const running = await startServer(app, { port: 0 });
    const inFlight = fetch(`${running.url}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    const closed = running.close(5000);
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(`${running.url}/slow`)).rejects.toThrow();
    release();
    expect(await inFlight).toEqual({ done: true });
    await closed;
  });
});

describe('client address behind the gateway', () => {
  function ipApp(trustProxy?: string) {
    const app = createHttpApp({
      logger: createLogger('t', { level: 'silent' }),
      metrics: createMetrics('t', { defaultMetrics: false }),
      ...(trustProxy ? { trustProxy } : {}),
    });
    app.get('/ip', (req, res) => {
      res.json({ ip: req.ip });
    });
    return finishApp(app);
  }

  it('believes X-Forwarded-For from the gateway on a private network, up to the first public hop', async () => {
    const res = await request(ipApp())
      .get('/ip')
      .set('x-forwarded-for', '198.51.100.7, 203.0.113.9, 10.1.2.3');
    expect(res.body.ip).toBe('203.0.113.9');
  });

  it('follows TRUST_PROXY when it is narrower', async () => {
    const res = await request(ipApp('loopback')).get('/ip').set('x-forwarded-for', '203.0.113.9, 10.1.2.3');
    expect(res.body.ip).toBe('10.1.2.3');
  });
});
