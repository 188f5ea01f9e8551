import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { createGateway, type Gateway } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';

const logger = createLogger('test', { level: 'silent' });

/** A replica of the data service: says who it is, counts what it received, breaks on `?break`. */
async function replica(name: string, breaks: (method: string) => boolean) {
  const seen = { get: 0, post: 0, broken: 0 };
  const app = express();
  app.use((req, _res, next) => {
    if (req.query.break === undefined || !breaks(req.method)) return next();
    seen.broken++;
    req.socket.destroy();
  });
  app.get(/.*/, (_req, res) => {
    seen.get++;
    res.json({ replica: name });
  });
  app.post(/.*/, (_req, res) => {
    seen.post++;
    res.status(201).json({ replica: name });
  });
  return { server: await startServer(app, { port: 0 }), seen };
}

describe('gateway with several replicas of a service (DATA_URL of three, one not listening)', () => {
  let a: Awaited<ReturnType<typeof replica>>;
  let b: Awaited<ReturnType<typeof replica>>;
  let dead: string;
  let bus: Bus;
  let edge: Gateway;
  let gateway: RunningServer;

  const start = async (env: Record<string, string>) => {
    const g = await createGateway({
      config: parseConfig({ INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET, ...env }),
      logger,
      metrics: createMetrics('gateway', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
      bus,
    });
    return { g, server: await startServer(g.handler, { port: 0 }) };
  };

  beforeAll(async () => {
    a = await replica('a', () => true);
    b = await replica('b', (method) => method !== 'GET');
    const doomed = await startServer(express(), { port: 0 });
    dead = doomed.url;
    await doomed.close();
    bus = createMemoryBus({ name: 'gateway-replicas-test' });
    // No rest: every third request meets the replica that is not listening.
    const started = await start({
      DATA_URL: `${a.server.url},${dead},${b.server.url}`,
      REPLICA_REST_MS: '0',
    });
    edge = started.g;
    gateway = started.server;
  });

  afterAll(async () => {
    await gateway.close();
    await edge.close();
    await bus.close();
    await a.server.close();
    await b.server.close();
  });

  const replicasOf = async (path: string, n: number, init?: RequestInit) =>
    Promise.all(
      Array.from({ length: n }, async () => {
        const res = await fetch(`${gateway.url}${path}`, init);
        return { status: res.status, body: (await res.json()) as { replica?: string; retryable?: boolean } };
      }),
    );

  it('shares the express path between the live replicas; the one not listening costs no answer', async () => {
    const answers = await replicasOf('/v1/catalog', 12);
    expect(answers.map((x) => x.status)).toEqual(Array(12).fill(200));
    const names = answers.map((x) => x.body.replica);
    expect(names).toContain('a');
    expect(names).toContain('b');
  });

  it('shares the lean data path the same way', async () => {
    // No credential on a metric the catalogue does not know: passed to the data service anonymously.
    const answers = await replicasOf('/v1/data/nowhere/nothing', 12);
    expect(answers.map((x) => x.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((x) => x.body.replica))).toEqual(new Set(['a', 'b']));
  });

  it('sends a write that found a replica not listening to another one, once', async () => {
    const before = a.seen.post + b.seen.post;
    const answers = await replicasOf('/v1/catalog', 9, { method: 'POST', body: '{}' });
    expect(answers.map((x) => x.status)).toEqual(Array(9).fill(201));
    expect(a.seen.post + b.seen.post - before).toBe(9);
  });

  it('sends a read whose connection broke before an answer to another replica, on both paths', async () => {
    for (const path of ['/v1/catalog?break', '/v1/data/nowhere/nothing?break']) {
      const answers = await replicasOf(path, 6);
      expect(answers.map((x) => x.status)).toEqual(Array(6).fill(200));
      expect(answers.every((x) => x.body.replica === 'b')).toBe(true);
    }
  });

  it('answers a write whose connection broke 503 (retryable) and never repeats it', async () => {
    const before = a.seen.broken + b.seen.broken;
    const res = await fetch(`${gateway.url}/v1/catalog?break`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
    expect(a.seen.broken + b.seen.broken - before).toBe(1);
  });

  it('answers 503 (retryable) at once when no replica is listening, on both paths', async () => {
    const down = await start({ DATA_URL: `${dead},${dead}` });
    try {
      for (const path of ['/v1/catalog', '/v1/data/nowhere/nothing']) {
        const started = Date.now();
        const res = await fetch(`${down.server.url}${path}`);
        expect(Date.now() - started).toBeLessThan(1000);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await down.server.close();
      await down.g.close();
    }
  });
});
