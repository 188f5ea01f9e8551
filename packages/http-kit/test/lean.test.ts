import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, createMetrics } from '@meridian/observability';
import {
  createHttpApp,
  finishApp,
  httpProblem,
  JsonText,
  withLeanRoutes,
  type LeanRoute,
} from '../src/index.js';
import { callerHeaders, testAssertionKey } from '../src/testing.js';

const metrics = createMetrics('lean', { defaultMetrics: false });

const echo: LeanRoute = {
  label: '/items/:id',
  match: (path) => (path.startsWith('/items/') ? { id: path.slice('/items/'.length) } : undefined),
  handle: async ({ id }, query, caller) => {
    if (id === 'refused') throw httpProblem('rate_limit', 'slow down', { retryAfter: 3 });
    if (id === 'broken') throw new Error('password=hunter2 in a stack');
    if (id === 'written') return new JsonText('{"b":1,  "a":"é"}', [['x-kept', 'yes']]);
    if (id === 'pieces')
      return new JsonText([
        Buffer.from('{"a":"é","s":'),
        '12',
        Buffer.from(',"c":'),
        '0.9',
        Buffer.from('}'),
      ]);
    return { id, q: query.q ?? null, account: caller.account_id };
  },
};

function listener() {
  const app = createHttpApp({ logger: createLogger('lean', { level: 'silent' }), metrics });
  app.post('/items/:id', (req, res) => {
    res.json({ posted: req.params.id });
  });
  return withLeanRoutes(finishApp(app), {
    routes: [echo],
    assertionKey: testAssertionKey,
    logger: createLogger('lean', { level: 'silent' }),
    metrics,
  });
}

describe('lean GET routes', () => {
  it('answers JSON with the security headers, request id and traceparent of the express side', async () => {
    const res = await request(listener())
      .get('/items/a1?q=x')
      .set(await callerHeaders({ account_id: 'acc_9' }))
      .set('x-request-id', 'r-1')
      .expect(200);
    expect(res.body).toEqual({ id: 'a1', q: 'x', account: 'acc_9' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('r-1');
    expect(res.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('sends an answer written already as it is, with its own fields and its length in bytes', async () => {
    const res = await request(listener())
      .get('/items/written')
      .set(await callerHeaders({}))
      .expect(200);
    expect(res.text).toBe('{"b":1,  "a":"é"}');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.headers['x-kept']).toBe('yes');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('sends an answer in pieces (kept bytes around patched strings) as one body of their summed length', async () => {
    const res = await request(listener())
      .get('/items/pieces')
      .set(await callerHeaders({}))
      .expect(200);
    expect(res.text).toBe('{"a":"é","s":12,"c":0.9}');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    const head = await request(listener())
      .head('/items/pieces')
      .set(await callerHeaders({}))
      .expect(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  });

  it('refuses a request without the gateway assertion', async () => {
    const res = await request(listener()).get('/items/a1').expect(401);
    expect(res.body.error_category).toBe('unauthorized');
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  it('answers thrown problems as problems and anything else as a 500 that leaks nothing', async () => {
    const headers = await callerHeaders({});
    const refused = await request(listener()).get('/items/refused').set(headers).expect(429);
    expect(refused.headers['retry-after']).toBe('3');
    expect(refused.body).toMatchObject({ error_category: 'rate_limit', retry_after: 3 });
    const broken = await request(listener()).get('/items/broken').set(headers).expect(500);
    expect(JSON.stringify(broken.body)).not.toContain('hunter2');
  });

  it('answers HEAD without a body and leaves other methods and paths to express', async () => {
    const headers = await callerHeaders({});
    const head = await request(listener()).head('/items/a1').set(headers).expect(200);
    expect(head.text).toBeUndefined();
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    await request(listener()).post('/items/a1').set(headers).expect(200, { posted: 'a1' });
    const other = await request(listener()).get('/elsewhere').set(headers).expect(404);
    expect(other.body.error_category).toBe('route_not_found');
  });

  it('counts lean answers in the request-duration metric under the route label', async () => {
    await request(listener())
      .get('/items/m1')
      .set(await callerHeaders({}));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{service="lean",method="GET",route="\/items\/:id",status="200"\} \d+/,
    );
  });
});
