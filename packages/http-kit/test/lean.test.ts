import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, createMetrics } from '@meridian/observability';
import {
  createHttpApp,
  finishApp,
  httpProblem,
  SerializedJson,
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
    if (id === 'kept')
      return new SerializedJson([Buffer.from('{"kept":'), Buffer.from('"é"'), Buffer.from('}')]);
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

  it('writes an answer serialised already as its chunks, with its length in bytes', async () => {
    const headers = await callerHeaders({});
    const kept = await request(listener()).get('/items/kept').set(headers).expect(200);
    expect(kept.text).toBe('{"kept":"é"}');
    expect(kept.headers['content-length']).toBe('13');
    expect(kept.headers['content-type']).toBe('application/json; charset=utf-8');
    const head = await request(listener()).head('/items/kept').set(headers).expect(200);
    expect([head.text, head.headers['content-length']]).toEqual([undefined, '13']);
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
