import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import pg from 'pg';
import { deleteNatsNamespace, waitFor } from '@meridian/bus/testing';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { start as startIdentity } from '@meridian/identity';
import { createLogger, createMetrics } from '@meridian/observability';
import { start as startGateway } from '../../src/main.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number) =>
  Array.from({ length: 6 }, (_, i) => BASE62[Math.floor(n / 62 ** (5 - i)) % 62]).join('');
type Started = Awaited<ReturnType<typeof startGateway>>;

/** The data service's place: answers who the gateway vouched for (a real assertion check). */
async function dataUpstream(): Promise<RunningServer> {
  const logger = createLogger('upstream', { level: 'silent' });
  const app = createHttpApp({ logger, metrics: createMetrics('upstream', { defaultMetrics: false }) });
  const routes = express.Router();
  routes.get(/^\/v1\/data\/.*/, (req, res) => {
    res.json({
      data: { path: req.path },
      meta: {
        caller: req.caller,
        saw_key: req.header('x-api-key') ?? req.header('authorization') ?? null,
        forwarded_for: req.header('x-forwarded-for') ?? null,
        traceparent: req.header('traceparent') ?? null,
      },
      provenance: { sources: [], method: 'echo' },
    });
  });
  app.use(requireCaller(testAssertionKey), routes);
  return startServer(finishApp(app), { port: 0 });
}

describe('gateway edge with the real identity service, two replicas and Redis', () => {
  let db: TestDatabase;
  const namespace = `t${randomUUID().slice(0, 8)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-edge-'));
  let identity: Awaited<ReturnType<typeof startIdentity>>;
  let upstream: RunningServer;
  let a: Started;
  let b: Started;
  let cookie: string;
  let sessionToken: string;

  const env = () => ({
    DATABASE_URL: db.url,
    NATS_URL,
    BUS_NAMESPACE: namespace,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
    LOG_LEVEL: 'silent',
    PORT: '0',
  });

  async function mailToken(email: string): Promise<string> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ body: string }>(
        'select body from identity.mail_outbox where recipient = $1 order by seq desc limit 1',
        [email],
      );
      return /token=([\w-]+)/.exec(rows[0]!.body)![1]!;
    } finally {
      await client.end();
    }
  }

  async function signIn(email: string): Promise<{ cookie: string; token: string }> {
    const json = { 'content-type': 'application/json' };
    const password = 'correct horse battery staple';
    const signup = await fetch(`${a.url}/auth/signup`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password }),
    });
    expect(signup.status).toBeLessThan(300);
    const verify = await fetch(`${a.url}/auth/verify-email`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ token: await mailToken(email) }),
    });
    expect(verify.status).toBe(200);
    const login = await fetch(`${a.url}/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
    const body = (await login.json()) as { data: { token: string } };
    return { cookie: login.headers.get('set-cookie')!.split(';')[0]!, token: body.data.token };
  }

  async function newKey(sessionCookie = cookie): Promise<{ id: string; key: string }> {
    const res = await fetch(`${b.url}/v1/keys`, { method: 'POST', headers: { cookie: sessionCookie } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string; key: string } }).data;
  }

  beforeAll(async () => {
    db = await createTestDatabase('gw_edge');
    upstream = await dataUpstream();
    identity = await startIdentity({ ...env(), DATA_DIR: dataDir, BCRYPT_COST: '12' });
    const gatewayEnv = {
      ...env(),
      IDENTITY_URL: identity.url,
      DATA_URL: upstream.url,
      REDIS_URL,
      RATE_LIMIT_PREFIX: `test:${namespace}:`,
      X402_PAY_TO: 'PayToAddress1111',
      X402_FEE_PAYER: 'FeePayerAddress1111',
    };
    a = await startGateway(gatewayEnv);
    b = await startGateway(gatewayEnv);
    ({ cookie, token: sessionToken } = await signIn(`u${namespace}@example.com`));
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await identity?.close();
    await upstream?.close();
    await deleteNatsNamespace(NATS_URL, namespace);
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('portal sessions', () => {
    it('answers 401 on a portal route without a valid session, and passes the session on', async () => {
      for (const headers of [
        {},
        { cookie: 'meridian_session=forged-token-0123456789' },
        { authorization: 'Bearer nope-nope-nope' },
      ]) {
        const res = await fetch(`${a.url}/v1/account`, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error_category: 'unauthorized', retryable: false });
      }
      for (const path of ['/v1/credits', '/v1/analysis/domains', '/v1/requests', '/v1/keys']) {
        expect((await fetch(`${a.url}${path}`)).status).toBe(401);
      }
      const byCookie = await fetch(`${a.url}/v1/account`, { headers: { cookie } });
      expect(byCookie.status).toBe(200);
      const byBearer = await fetch(`${b.url}/v1/account`, {
        headers: { authorization: `Bearer ${sessionToken}` },
      });
      expect(byBearer.status).toBe(200);
    });

    it('lets anonymous routes through without a session', async () => {
      const res = await fetch(`${a.url}/auth/providers`);
      expect(res.status).toBe(200);
    });

    it('answers whoami by session and by API key', async () => {
      const { key } = await newKey();
      const bySession = await fetch(`${a.url}/v1/agent/whoami`, { headers: { cookie } });
      expect(((await bySession.json()) as { data: { auth: string } }).data.auth).toBe('session');
      const byKey = await fetch(`${a.url}/v1/agent/whoami`, { headers: { 'x-api-key': key } });
      expect(byKey.status).toBe(200);
      expect(((await byKey.json()) as { data: { auth: string } }).data.auth).toBe('api_key');
      const byBearerKey = await fetch(`${b.url}/v1/agent/whoami`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(((await byBearerKey.json()) as { data: { auth: string } }).data.auth).toBe('api_key');
    });

    it('stops a session on every replica once it signed out', async () => {
      const other = await signIn(`v${namespace}@example.com`);
      expect((await fetch(`${b.url}/v1/account`, { headers: { cookie: other.cookie } })).status).toBe(200);
      const out = await fetch(`${a.url}/auth/logout`, { method: 'POST', headers: { cookie: other.cookie } });
      expect(out.status).toBe(200);
      await waitFor(
        async () =>
          (await fetch(`${b.url}/v1/account`, { headers: { cookie: other.cookie } })).status === 401,
        {
          timeoutMs: 1000,
          what: 'the signed-out session to be refused on the other replica',
        },
      );
    });
  });

  describe('data calls', () => {
    it('serves a valid key with the caller asserted, the key withheld, and rate-limit headers', async () => {
      const { key, id } = await newKey();
      const traceId = 'ab'.repeat(16);
      const res = await fetch(`${a.url}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, {
        headers: {
          authorization: `Bearer ${key}`,
          'x-forwarded-for': '198.51.100.1, 203.0.113.50',
          traceparent: `00-${traceId}-${'cd'.repeat(8)}-01`,
        },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        meta: {
          caller: Record<string, unknown>;
          saw_key: unknown;
          forwarded_for: string;
          traceparent: string;
        };
      };
      // One client address (the loopback peer is trusted), and the caller's trace continued.
      expect(body.meta.forwarded_for).toBe('203.0.113.50');
      expect(body.meta.traceparent).toContain(traceId);
      expect(body.meta.traceparent).not.toContain('cd'.repeat(8));
      expect(body.meta.caller).toMatchObject({ auth: 'api_key', key_id: id, plan: 'free' });
      expect(body.meta.saw_key).toBeNull();
      expect(res.headers.get('ratelimit-limit')).toBe('10');
      expect(res.headers.get('ratelimit-remaining')).toBe('9');
      expect(res.headers.get('ratelimit-policy')).toBe('"per-key";q=10;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^"per-key";r=9;t=\d+$/);
    });

    it('refuses a malformed or unknown key with 401, remembering the unknown one', async () => {
      const junk = await fetch(`${a.url}/v1/data/crypto/spot/reference_price`, {
        headers: { 'x-api-key': 'garbage-key-xyz' },
      });
      expect(junk.status).toBe(401);
      expect(await junk.json()).toMatchObject({ error_category: 'unauthorized', retryable: false });
      const { key } = await newKey();
      const forged = `${key.slice(0, 8)}ZZZZZZZZZZZZ${key.slice(20)}`;
      const before = a.gateway.caches.keys.misses;
      expect(
        (await fetch(`${a.url}/v1/data/crypto/spot/reference_price`, { headers: { 'x-api-key': forged } }))
          .status,
      ).toBe(401);
      expect(a.gateway.caches.keys.misses).toBe(before);
      // Well-formed with a valid checksum but unknown to identity: asked once, then remembered.
      const body = `mk_live_${'Q'.repeat(44)}`;
      const unknown = `${body}${base62(crc32(body))}`;
      const missesBefore = b.gateway.caches.keys.misses;
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${b.url}/v1/data/crypto/spot/reference_price`, {
          headers: { 'x-api-key': unknown },
        });
        expect(res.status).toBe(401);
      }
      expect(b.gateway.caches.keys.misses).toBe(missesBefore + 1);
    });

    it('answers a keyless call on a priced route with the x402 challenge', async () => {
      const res = await fetch(`${a.url}/v1/data/crypto/spot/ohlcv?series=true`);
      expect(res.status).toBe(402);
      const body = (await res.json()) as {
        accepts: { amount: string; payTo: string }[];
        resource: { url: string };
      };
      expect(JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString())).toEqual(
        body,
      );
      expect(body.accepts[0]).toMatchObject({ amount: '20000', payTo: 'PayToAddress1111' });
      expect(body.resource.url).toMatch(/\/v1\/data\/crypto\/spot\/ohlcv\?series=true$/);
      const paid = await fetch(`${a.url}/v1/data/crypto/spot/reference_price`, {
        headers: { 'payment-signature': 'abc' },
      });
      expect(paid.status).toBe(402);
      expect(((await paid.json()) as { error: string }).error).toContain('not enabled');
    });

    it('refuses a plan below the gate with 403 tier_forbidden naming the metric and plan', async () => {
      const { key } = await newKey();
      const res = await fetch(`${a.url}/v1/data/crypto/options/chain`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error_category: string; detail: string };
      expect(body.error_category).toBe('tier_forbidden');
      expect(body.detail).toContain('crypto/options/chain');
      expect(body.detail).toContain('pro');
    });

    it('reads a percent-encoded metric path as the data service does: no way round payment or gate', async () => {
      const keyless = await fetch(`${a.url}/v1/data/crypto/spot/reference_pric%65`);
      expect(keyless.status).toBe(402);
      const { key } = await newKey();
      const gated = await fetch(`${a.url}/v1/data/crypto/futures/mark_pric%65`, {
        headers: { 'x-api-key': key },
      });
      expect(gated.status).toBe(403);
      expect(((await gated.json()) as { detail: string }).detail).toContain('crypto/futures/mark_price');
    });

    it('shares one budget between two replicas: a burst admits no more than the bucket', async () => {
      const { key } = await newKey();
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(`${(i % 2 ? a : b).url}/v1/data/crypto/spot/reference_price`, {
            headers: { 'x-api-key': key },
          }).then(async (r) => ({
            status: r.status,
            retryAfter: r.headers.get('retry-after'),
            body: await r.json(),
          })),
        ),
      );
      const admitted = statuses.filter((s) => s.status === 200).length;
      // Capacity 10 plus at most one token refilled (10/min) during the burst.
      expect(admitted).toBeGreaterThanOrEqual(10);
      expect(admitted).toBeLessThanOrEqual(11);
      const limited = statuses.find((s) => s.status === 429)!;
      expect(limited.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
      expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
      expect((limited.body as { retry_after: number }).retry_after).toBe(Number(limited.retryAfter));
    });

    it('stops a revoked key on every replica within one second', async () => {
      const { key, id } = await newKey();
      for (const g of [a, b]) {
        expect(
          (await fetch(`${g.url}/v1/data/crypto/spot/reference_price`, { headers: { 'x-api-key': key } }))
            .status,
        ).toBe(200);
      }
      const revoked = await fetch(`${a.url}/v1/keys/${id}/revoke`, { method: 'POST', headers: { cookie } });
      expect(revoked.status).toBe(200);
      const at = Date.now();
      await waitFor(
        async () =>
          (await fetch(`${b.url}/v1/data/crypto/spot/reference_price`, { headers: { 'x-api-key': key } }))
            .status === 401,
        { timeoutMs: 1000, intervalMs: 10, what: 'the revoked key to be refused on the other replica' },
      );
      expect(Date.now() - at).toBeLessThan(1000);
      expect(
        (await fetch(`${a.url}/v1/data/crypto/spot/reference_price`, { headers: { 'x-api-key': key } }))
          .status,
      ).toBe(401);
    });
  });
});
