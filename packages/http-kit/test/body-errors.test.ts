import { describe, expect, it } from '@jest/globals';
import express from 'express';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger, createMetrics } from '@meridian/observability';
import { createHttpApp, finishApp } from '../src/index.js';

const PASSWORD = 'correct-horse-battery-staple-41';
const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

function formApp() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = createHttpApp({
    logger: createLogger('test', { destination: sink }),
    metrics: createMetrics('test', { defaultMetrics: false }),
    jsonLimit: '1kb',
    formPaths: ['/form'],
  });
  const form = express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 4 });
  app.post('/form', form, (req, res) => {
    res.json({ fields: Object.keys(req.body ?? {}).length });
  });
  return { app: finishApp(app), log: () => lines.join('') };
}

function formOf(fields: number): string {
  const pairs = [`token=${TOKEN}`, `password=${PASSWORD}`];
  for (let i = pairs.length; i < fields; i++) pairs.push(`extra${i}=x`);
  return pairs.join('&');
}

describe('body-parser failures', () => {
  it('accepts a form within its field limit', async () => {
    const { app } = formApp();
    const res = await request(app).post('/form').type('form').send(formOf(4)).expect(200);
    expect(res.body).toEqual({ fields: 4 });
  });

  it('answers a form with too many fields 413 and logs neither its fields nor a stack', async () => {
    const { app, log } = formApp();
    const res = await request(app).post('/form').type('form').send(formOf(5));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 413, error_category: 'payload_too_large', retryable: false });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(log()).not.toContain(PASSWORD);
    expect(log()).not.toContain(TOKEN);
    expect(log()).not.toContain('unhandled error');
    expect(log()).not.toMatch(/\bat \S+ \(/);
  });

  it('answers malformed JSON 400 without echoing or logging the body', async () => {
    const { app, log } = formApp();
    const res = await request(app)
      .post('/form')
      .set('content-type', 'application/json')
      .send(`{"password":"${PASSWORD}",`);
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('bad_request');
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(log()).not.toContain(PASSWORD);
  });

  it('answers a JSON body over the limit 413', async () => {
    const { app } = formApp();
    const res = await request(app)
      .post('/form')
      .send({ password: PASSWORD, pad: 'x'.repeat(2000) });
    expect(res.status).toBe(413);
    expect(res.body.error_category).toBe('payload_too_large');
  });

  it('answers an unknown charset or content encoding 415', async () => {
    const { app } = formApp();
    const charset = await request(app)
      .post('/form')
      .set('content-type', 'application/json; charset=klingon')
      .send('{}');
    expect(charset.status).toBe(415);
    expect(charset.body.error_category).toBe('unsupported_media_type');
    const encoding = await request(app)
      .post('/form')
      .set('content-type', 'application/json')
      .set('content-encoding', 'zstd-nonsense')
      .send('{}');
    expect(encoding.status).toBe(415);
    expect(encoding.body.error_category).toBe('unsupported_media_type');
  });

  it('answers a form nested past its depth 400', async () => {
    const nested = createHttpApp({
      logger: createLogger('test', { level: 'silent' }),
      metrics: createMetrics('test', { defaultMetrics: false }),
      formPaths: ['/deep'],
    });
    // body-parser 2 takes `depth`, which @types/express does not list yet.
    const shallow = { extended: true, depth: 1 };
    nested.post('/deep', express.urlencoded(shallow), (_req, res) => {
      res.json({});
    });
    const res = await request(finishApp(nested)).post('/deep').type('form').send('a[b][c][d]=1');
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('bad_request');
  });
});
