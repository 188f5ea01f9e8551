import { afterEach, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { Router } from 'express';
import request from 'supertest';
import { createLogger, createMetrics } from '@meridian/observability';
import {
  createHttpApp,
  finishApp,
  leanMethods,
  startServer,
  withLeanRoutes,
  type LeanRoute,
  type RunningServer,
} from '../src/index.js';
import { testAssertionKey } from '../src/testing.js';

const logger = createLogger('test', { level: 'silent' });
const metrics = createMetrics('test', { defaultMetrics: false });

const lean: LeanRoute = {
  label: '/things/:id',
  match: (path) => (path.startsWith('/things/') ? { id: path.slice(8) } : undefined),
  handle: async ({ id }) => ({ id }),
};

function app() {
  const express = createHttpApp({ logger, metrics });
  const router = Router();
  router.get('/v1/widgets', (_req, res) => void res.json({}));
  router.post('/v1/widgets', (_req, res) => void res.json({}));
  router.put('/v1/widgets/:id/name', (_req, res) => void res.json({}));
  router.get('/v1/gadgets/:id', (req, res) => void res.json({ id: req.params.id }));
  express.use(router);
  const finished = finishApp(express, leanMethods([lean]));
  return withLeanRoutes(finished, { routes: [lean], assertionKey: testAssertionKey, logger, metrics });
}

describe('a known path with another method', () => {
  it('answers 405 problem+json with Allow, from a nested router', async () => {
    const res = await request(app()).delete('/v1/widgets');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 405, error_category: 'method_not_allowed' });
    const named = await request(app()).get('/v1/widgets/w1/name');
    expect([named.status, named.headers.allow]).toEqual([405, 'PUT']);
  });

  it('answers 405 for a lean GET path, and 404 for an unknown path', async () => {
    const res = await request(app()).post('/things/a').send({});
    expect([res.status, res.headers.allow]).toEqual([405, 'GET, HEAD']);
    const unknown = await request(app()).delete('/v1/gadgets');
    expect([unknown.status, unknown.body.error_category]).toEqual([404, 'route_not_found']);
  });

  it('answers a path parameter that is not valid percent-encoding with a 400 problem, not a 500', async () => {
    const res = await request(app()).get('/v1/gadgets/%FF');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, error_category: 'bad_request', retryable: false });
    expect((await request(app()).get('/v1/gadgets/%E2%82%AC')).body).toEqual({ id: '€' });
  });

  it('serves a trailing slash as the same resource', async () => {
    expect((await request(app()).post('/v1/widgets/').send({})).status).toBe(200);
  });
});

describe('what node refuses before any route', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close(100);
    server = undefined;
  });

  const raw = (port: number, headers: Record<string, string>) =>
    new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/widgets', headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += String(c)));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers header fields too large with a 431 problem+json body, not a bare status line', async () => {
    server = await startServer(app(), { port: 0 });
    const res = await raw(server.port, { 'x-padding': 'x'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(res.type).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, error_category: 'header_fields_too_large' });
  });

  it('answers a request that is not HTTP with a 400 problem+json body', async () => {
    server = await startServer(app(), { port: 0 });
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(server!.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => (text += String(c)));
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(answer).toContain('application/problem+json');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400 });
  });
});
