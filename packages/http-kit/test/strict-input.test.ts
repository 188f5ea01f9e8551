import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createLogger, createMetrics } from '@meridian/observability';
import { createHttpApp, envelope, finishApp, parseInput, parseQuery } from '../src/index.js';

function strictApp() {
  const app = createHttpApp({
    logger: createLogger('test', { level: 'silent' }),
    metrics: createMetrics('test', { defaultMetrics: false }),
    formPaths: ['/form'],
  });
  const query = z.object({ limit: z.coerce.number().int().optional(), cursor: z.string().optional() });
  app.get('/list', (req, res) => {
    res.json(envelope(parseQuery(query, req.query)));
  });
  app.post('/json', (req, res) => {
    res.json(envelope(parseInput(z.object({ name: z.string() }), req.body)));
  });
  app.post('/form', express.urlencoded({ extended: false }), (req, res) => {
    res.json(envelope({ fields: Object.keys(req.body ?? {}) }));
  });
  return finishApp(app);
}

describe('a route takes exactly its query parameters', () => {
  it('refuses an unknown parameter with a 400 naming it and listing what the route takes', async () => {
    const res = await request(strictApp()).get('/list?limt=5&cursor=abc');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.error_category).toBe('validation_failed');
    expect(res.body.errors).toEqual([
      { path: 'query.limt', message: 'unknown parameter; this route takes limit, cursor' },
    ]);
    expect(res.body.detail).toBe('Unknown query parameter "limt"; this route takes limit, cursor.');
  });

  it('never echoes a parameter value, nor a name long enough to be a pasted key', async () => {
    const key = `mk_live_${'a'.repeat(50)}`;
    const res = await request(strictApp()).get(`/list?api_key=hunter22&${key}`);
    expect(res.status).toBe(400);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain(key);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'query.api_key',
      'query.(a name of 58 characters)',
    ]);
  });

  it('answers the known parameters as before', async () => {
    const res = await request(strictApp()).get('/list?limit=5');
    expect([res.status, res.body.data]).toEqual([200, { limit: 5 }]);
  });
});

describe('a JSON route refuses other bodies with 415', () => {
  it('answers a form or text body to a JSON route 415, saying to send JSON', async () => {
    for (const [type, body] of [
      ['form', 'name=ada'],
      ['text/plain', '{"name":"ada"}'],
    ] as const) {
      const res = await request(strictApp()).post('/json').type(type).send(body);
      expect([type, res.status]).toEqual([type, 415]);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 415, error_category: 'unsupported_media_type' });
      expect(res.body.detail).toContain('Content-Type: application/json');
    }
  });

  it('reads JSON, and a form on a route that takes one; a body-less post is not refused', async () => {
    const app = strictApp();
    expect((await request(app).post('/json').send({ name: 'ada' })).status).toBe(200);
    const form = await request(app).post('/form').type('form').send('a=1&b=2');
    expect([form.status, form.body.data]).toEqual([200, { fields: ['a', 'b'] }]);
    expect((await request(app).post('/json')).status).toBe(400);
  });
});
