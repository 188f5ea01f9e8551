import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createNatsBus } from '@meridian/bus';
import { cuttableLink, deleteNatsNamespace, waitFor, type CuttableLink } from '@meridian/bus/testing';
import { RPC, formatApiKey } from '@meridian/contracts';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { linkIn, startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { PORTAL_ROUTES } from '../../src/domain/portal-routes.js';
import { isDataPath } from '../../src/domain/data-route.js';
import { start as startGateway } from '../../src/main.js';
import { ROUTE_TABLE, accessOf } from '../../src/domain/route-table.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number) =>
  Array.from({ length: 6 }, (_, i) => BASE62[Math.floor(n / 62 ** (5 - i)) % 62]).join('');
type Started = Awaited<ReturnType<typeof startGateway>>;
const DATA = '/v1/data/crypto/spot/reference_price';
const CHALLENGE = 'Bearer realm="meridian"';
const INVALID_TOKEN = 'Bearer realm="meridian", error="invalid_token"';
const base62Text = (n: number) =>
  randomBytes(n)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, 'x')
    .slice(0, n);
/** A key of identity's format with a valid checksum that identity never issued. */
const unissuedKey = () => formatApiKey(base62Text(12), base62Text(32));

/**
 * The most a bucket of `perMinute` tokens, new at `startedAt`, can have granted by now: its
 * capacity and the whole tokens refilled since. Bounds from the wall clock rather than assuming a
 * burst ends before the first refill, which a loaded machine does not promise.
 */
const grantedSince = (perMinute: number, startedAt: number) =>
  perMinute + Math.floor(((Date.now() - startedAt) * perMinute) / 60_000);

/**
 * A connection that sends the head of `POST path` and the first bytes of a body it never
 * finishes; `answer` resolves with what the gateway said by the time it closed.
 */
function stalledBody(
  url: string,
  path: string,
  forwardedFor: string,
): { socket: Socket; answer: Promise<string> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1', () => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n` +
        `X-Forwarded-For: ${forwardedFor}\r\n\r\n{"email":"`,
    );
  });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, answer };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The concrete paths every session-gated portal route of the spec and of the route table is called by. */
function sessionGatedRoutes(): Array<[string, string]> {
  const concrete = (path: string) => path.replaceAll('{id}', randomUUID());
  const spec = PORTAL_ROUTES.map(
    ({ method, path }) => [method.toUpperCase(), concrete(path)] as [string, string],
  );
  const prefixes = ROUTE_TABLE.filter((r) => !isDataPath(r.prefix)).map(
    (r) => ['GET', r.prefix] as [string, string],
  );
  return [...spec, ...prefixes].filter(([, path]) => ['session', 'session_or_key'].includes(accessOf(path)));
}

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
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let identity: ServiceProcess;
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

  const gatewayEnv = () => ({
    ...env(),
    IDENTITY_URL: identity.url,
    DATA_URL: upstream.url,
    REDIS_URL,
    RATE_LIMIT_PREFIX: `test:${namespace}:`,
    X402_PAY_TO: 'PayToAddress1111',
    X402_FEE_PAYER: 'FeePayerAddress1111',
    METRICS_PORT: '0',
    // The tests play several clients from loopback, each named by X-Forwarded-For.
    TRUST_PROXY: 'loopback',
    // Many keys of one account here; the ceiling's own test starts a gateway pair with a low one.
    ACCOUNT_RATE_MULTIPLE: '100',
  });

  /** The token of the confirmation link identity mailed to `email`, once the mail arrived. */
  async function mailToken(email: string): Promise<string> {
    const mailed = () => smtp.mails.find((m) => m.to === email);
    await waitFor(() => mailed() !== undefined, { timeoutMs: 15_000, what: `the mail to ${email}` });
    return linkIn(mailed()!).searchParams.get('token')!;
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
    smtp = await startSmtp();
    identity = await startServiceProcess('services/identity/src/main.ts', {
      ...env(),
      DATA_DIR: dataDir,
      BCRYPT_COST: '12',
      SMTP_URL: smtp.url,
      // The tests make keys by the dozen for one account; the quota's own tests are identity's.
      KEY_CREATION_LIMIT: '100000',
      KEY_CAPS: 'free=1000',
    });
    a = await startGateway(gatewayEnv());
    b = await startGateway(gatewayEnv());
    ({ cookie, token: sessionToken } = await signIn(`u${namespace}@example.com`));
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await identity?.close();
    await smtp?.close();
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
      const byCookie = await fetch(`${a.url}/v1/account`, { headers: { cookie } });
      expect(byCookie.status).toBe(200);
      const byBearer = await fetch(`${b.url}/v1/account`, {
        headers: { authorization: `Bearer ${sessionToken}` },
      });
      expect(byBearer.status).toBe(200);
    });

    it('answers 401 with a bearer challenge on every session-gated portal route', async () => {
      const routes = sessionGatedRoutes();
      expect(routes.length).toBeGreaterThan(45);
      const forged = `forged-${randomUUID()}`;
      const before = a.gateway.caches.sessions.misses;
      for (const [method, path] of routes) {
        for (const [headers, challenge] of [
          [{}, CHALLENGE],
          [{ authorization: `Bearer ${forged}` }, INVALID_TOKEN],
        ] as const) {
          const res = await fetch(`${a.url}${path}`, { method, headers });
          expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
          expect(res.headers.get('www-authenticate')).toBe(challenge);
          expect(await res.json()).toMatchObject({ error_category: 'unauthorized', retryable: false });
        }
      }
      // The forged token was asked about once and then remembered, like an unknown key.
      expect(a.gateway.caches.sessions.misses).toBe(before + 1);
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
      // The upstream's fields pass, the edge's own replace the upstream's of the same name.
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('traceparent')).toBe(body.meta.traceparent);
      expect(res.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('refuses a malformed or unknown key with 401, remembering the unknown one', async () => {
      const junk = await fetch(`${a.url}/v1/data/crypto/spot/reference_price`, {
        headers: { 'x-api-key': 'garbage-key-xyz' },
      });
      expect(junk.status).toBe(401);
      expect(junk.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
      expect(await junk.json()).toMatchObject({ error_category: 'unauthorized', retryable: false });
      const basic = await fetch(`${a.url}${DATA}`, { headers: { authorization: 'Basic dTpw' } });
      expect(basic.status).toBe(401);
      expect(basic.headers.get('www-authenticate')).toBe(CHALLENGE);
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
        expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
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
      // No x402 service answers on this bus: the payment cannot be checked, retry later.
      expect(paid.status).toBe(503);
      expect(await paid.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
      expect(res.headers.get('cache-control')).toBe('no-store');
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

    it("reads data by a signed-in session at its account's plan, without x402; a stale session may still pay", async () => {
      const free = await fetch(`${a.url}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, {
        headers: { cookie },
      });
      expect(free.status).toBe(200);
      expect(free.headers.get('payment-required')).toBeNull();
      const body = (await free.json()) as { meta: { caller: Record<string, unknown> } };
      expect(body.meta.caller).toMatchObject({ auth: 'session', plan: 'free', key_id: null });
      expect(free.headers.get('ratelimit-limit')).toBe('10');
      const gated = await fetch(`${a.url}/v1/data/crypto/options/chain`, { headers: { cookie } });
      expect(gated.status).toBe(403);
      expect(((await gated.json()) as { error_category: string }).error_category).toBe('tier_forbidden');
      const stale = await fetch(`${a.url}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, {
        headers: { cookie: 'meridian_session=forged-token-0123456789' },
      });
      expect(stale.status).toBe(402);
    });

    it('takes the key path when a valid key comes with a payment header: plan gating, nothing verified or settled', async () => {
      // An x402 service on the bus for this test only, counting every payment it is asked about.
      const bus = await createNatsBus({
        url: NATS_URL,
        name: 'x402-observer',
        namespace,
        logger: createLogger('x402-observer', { level: 'silent' }),
      });
      const asked: string[] = [];
      const refuse = (subject: string) => async () => {
        asked.push(subject);
        return { ok: false, problem: { status: 500, title: 'must not be asked' } } as never;
      };
      for (const subject of [RPC.x402SupportedRead, RPC.x402PaymentVerify, RPC.x402PaymentSettle])
        await bus.serve(subject, 'x402', refuse(subject));
      try {
        const { key } = await newKey();
        for (const payment of [{ 'payment-signature': 'cGF5bWVudA==' }, { 'x-payment': 'cGF5bWVudA==' }]) {
          const gated = await fetch(`${a.url}/v1/data/crypto/options/chain`, {
            headers: { 'x-api-key': key, ...payment },
          });
          expect(gated.status).toBe(403);
          expect(gated.headers.get('payment-response')).toBeNull();
          expect(gated.headers.get('payment-required')).toBeNull();
          expect(await gated.json()).toMatchObject({ error_category: 'tier_forbidden' });

          const free = await fetch(`${b.url}${DATA}?entity=BTC-USD`, {
            headers: { authorization: `Bearer ${key}`, ...payment },
          });
          expect(free.status).toBe(200);
          expect(free.headers.get('payment-response')).toBeNull();
          const body = (await free.json()) as { meta: { caller: { auth: string; plan: string } } };
          // Served as the key's account on its plan, not as a paying x402 caller.
          expect(body.meta.caller).toMatchObject({ auth: 'api_key', plan: 'free' });
        }
        expect(asked).toEqual([]);
      } finally {
        await bus.close();
      }
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
      const startedAt = Date.now();
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
      // Capacity 10 plus whatever refilled (10/min, one every 6 s) during the burst.
      expect(admitted).toBeGreaterThanOrEqual(10);
      expect(admitted).toBeLessThanOrEqual(grantedSince(10, startedAt));
      const limited = statuses.find((s) => s.status === 429)!;
      expect(limited.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
      expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
      expect((limited.body as { retry_after: number }).retry_after).toBe(Number(limited.retryAfter));
    });

    it('caps all keys of one account together (ACCOUNT_RATE_MULTIPLE), across replicas, saying so', async () => {
      const low = { ...gatewayEnv(), ACCOUNT_RATE_MULTIPLE: '1.5' };
      const [c, d] = [await startGateway(low), await startGateway(low)];
      try {
        const owner = await signIn(`ceiling${namespace}@example.com`);
        const keys = [await newKey(owner.cookie), await newKey(owner.cookie), await newKey(owner.cookie)];
        const startedAt = Date.now();
        const answers = [];
        // Each key stays within its own 10 a minute; together they ask for 27, over 1.5 x 10.
        for (const { key } of keys)
          for (let i = 0; i < 9; i++) {
            const r = await fetch(`${(i % 2 ? c : d).url}/v1/data/crypto/spot/reference_price`, {
              headers: { 'x-api-key': key },
            });
            answers.push({ status: r.status, body: (await r.json()) as { detail?: string } });
          }
        const admitted = answers.filter((x) => x.status === 200).length;
        expect(admitted).toBeGreaterThanOrEqual(15);
        expect(admitted).toBeLessThanOrEqual(grantedSince(15, startedAt));
        const refused = answers.find((x) => x.status === 429)!;
        expect(refused.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
        expect(refused.body.detail).toMatch(/keys and sessions together allow 15 requests per minute/);
      } finally {
        await c.close();
        await d.close();
      }
    });

    it('stops a revoked key on every replica within one second', async () => {
      // An account of its own: the calls that wait for the refusal spend what its next keys start from.
      const owner = await signIn(`r${namespace}@example.com`);
      const { key, id } = await newKey(owner.cookie);
      for (const g of [a, b]) {
        expect(
          (await fetch(`${g.url}/v1/data/crypto/spot/reference_price`, { headers: { 'x-api-key': key } }))
            .status,
        ).toBe(200);
      }
      const revoked = await fetch(`${a.url}/v1/keys/${id}/revoke`, {
        method: 'POST',
        headers: { cookie: owner.cookie },
      });
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

  describe('failed verifications per client address', () => {
    type Answer = { status: number; retryAfter: string | null; body: { error_category?: string } };
    const answer = async (r: Response): Promise<Answer> => ({
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      body: (await r.json()) as Answer['body'],
    });
    /** The default budget (30 a minute, one try back every 2 s), plus what refilled since. */
    const budgetAfter = (startedAt: number) => grantedSince(30, startedAt);

    it('asks identity about no more unknown keys from one address than its budget, on every replica', async () => {
      const flood = '203.0.113.77';
      const before = a.gateway.caches.keys.misses;
      const startedAt = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 45 }, () =>
          fetch(`${a.url}${DATA}`, {
            headers: { 'x-api-key': unissuedKey(), 'x-forwarded-for': flood },
          }).then(answer),
        ),
      );
      const asked = a.gateway.caches.keys.misses - before;
      expect(asked).toBeGreaterThanOrEqual(30);
      expect(asked).toBeLessThanOrEqual(budgetAfter(startedAt));
      expect(answers.filter((r) => r.status === 401)).toHaveLength(asked);
      const limited = answers.filter((r) => r.status === 429);
      expect(limited).toHaveLength(45 - asked);
      expect(limited[0]!.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
      expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
      // The budget lives in Redis: the other replica refuses the same address without asking it,
      // but for the tries that refilled meanwhile (usually none).
      const otherBefore = b.gateway.caches.keys.misses;
      const elsewhere: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${b.url}${DATA}`, {
          headers: { 'x-api-key': unissuedKey(), 'x-forwarded-for': flood },
        });
        elsewhere.push(res.status);
        await res.arrayBuffer();
      }
      const askedElsewhere = b.gateway.caches.keys.misses - otherBefore;
      expect(elsewhere.filter((s) => s === 401)).toHaveLength(askedElsewhere);
      expect(elsewhere.filter((s) => s === 429)).toHaveLength(3 - askedElsewhere);
      expect(asked + askedElsewhere).toBeLessThanOrEqual(budgetAfter(startedAt));
      // A real key from another address is served.
      const { key } = await newKey();
      const real = await fetch(`${a.url}${DATA}`, {
        headers: { 'x-api-key': key, 'x-forwarded-for': '198.51.100.23' },
      });
      expect(real.status).toBe(200);
    });

    it('asks identity about no more unknown session tokens from one address than its budget', async () => {
      const flood = '203.0.113.78';
      const before = a.gateway.caches.sessions.misses;
      const startedAt = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 45 }, () =>
          fetch(`${a.url}/v1/account`, {
            headers: { authorization: `Bearer sess-${randomUUID()}`, 'x-forwarded-for': flood },
          }).then(answer),
        ),
      );
      const asked = a.gateway.caches.sessions.misses - before;
      expect(asked).toBeGreaterThanOrEqual(30);
      expect(asked).toBeLessThanOrEqual(budgetAfter(startedAt));
      expect(answers.filter((r) => r.status === 401)).toHaveLength(asked);
      const limited = answers.filter((r) => r.status === 429);
      expect(limited).toHaveLength(45 - asked);
      expect(limited[0]!.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
      expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
      // Sign-in stays open to that address: an anonymous route serves it as anonymous.
      const providers = await fetch(`${a.url}/auth/providers`, {
        headers: { cookie: `meridian_session=stale-${randomUUID()}`, 'x-forwarded-for': flood },
      });
      expect(providers.status).toBe(200);
      const real = await fetch(`${a.url}/v1/account`, {
        headers: { cookie, 'x-forwarded-for': '198.51.100.24' },
      });
      expect(real.status).toBe(200);
    });
  });

  describe('with Redis unreachable', () => {
    let lonely: Started;

    beforeAll(async () => {
      lonely = await startGateway({ ...gatewayEnv(), REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    });

    afterAll(async () => {
      await lonely?.close();
    });

    const redisUp = async (g: Started) =>
      /^gateway_rate_limit_redis_up\{[^}]*\} (\d)$/m.exec(await (await fetch(g.metricsUrl)).text())?.[1];

    it('serves its metrics on their own loopback listener, never on the public port', async () => {
      expect((await fetch(`${a.url}/metrics`)).status).toBe(404);
      expect(new URL(a.metricsUrl).hostname).toBe('127.0.0.1');
      const res = await fetch(a.metricsUrl);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('http_request_duration_seconds');
      expect((await fetch(new URL('/health', a.metricsUrl))).status).toBe(404);
    });

    it('stays ready, reports Redis down, and limits each key with its own buckets', async () => {
      expect((await fetch(`${lonely.url}/ready`)).status).toBe(200);
      expect(await redisUp(lonely)).toBe('0');
      expect(await redisUp(a)).toBe('1');
      const { key } = await newKey();
      const answers = [];
      const startedAt = Date.now();
      for (let i = 0; i < 13; i++) {
        const res = await fetch(`${lonely.url}${DATA}`, { headers: { 'x-api-key': key } });
        answers.push({ status: res.status, limit: res.headers.get('ratelimit-limit') });
        await res.arrayBuffer();
      }
      const admitted = answers.filter((r) => r.status === 200).length;
      // Capacity 10 plus whatever refilled (10/min, one every 6 s) during the calls.
      expect(admitted).toBeGreaterThanOrEqual(10);
      expect(admitted).toBeLessThanOrEqual(grantedSince(10, startedAt));
      expect(answers.filter((r) => r.status === 429).length).toBe(13 - admitted);
      expect(answers.every((r) => r.limit === '10')).toBe(true);
    });
  });

  describe('after the bus reconnects', () => {
    let link: CuttableLink;
    let relayed: Started;

    beforeAll(async () => {
      link = await cuttableLink(NATS_URL);
      relayed = await startGateway({ ...gatewayEnv(), NATS_URL: link.url });
    });

    afterAll(async () => {
      await relayed?.close();
      await link?.close();
    });

    it('verifies again every key and session, so one revoked while it was away is refused', async () => {
      const { key, id } = await newKey();
      const other = await signIn(`w${namespace}@example.com`);
      const keyStatus = async (g: Started) =>
        (await fetch(`${g.url}${DATA}`, { headers: { 'x-api-key': key } })).status;
      const sessionStatus = async (g: Started) =>
        (await fetch(`${g.url}/v1/account`, { headers: { cookie: other.cookie } })).status;
      expect(await keyStatus(relayed)).toBe(200);
      expect(await sessionStatus(relayed)).toBe(200);

      link.cut();
      const revoked = await fetch(`${a.url}/v1/keys/${id}/revoke`, { method: 'POST', headers: { cookie } });
      expect(revoked.status).toBe(200);
      const out = await fetch(`${a.url}/auth/logout`, { method: 'POST', headers: { cookie: other.cookie } });
      expect(out.status).toBe(200);
      await waitFor(async () => (await keyStatus(b)) === 401 && (await sessionStatus(b)) === 401, {
        what: 'the revocations to reach the connected replica',
      });
      // The events went out while the link was down: this replica still vouches for both.
      expect(relayed.gateway.caches.keys.verify(key)).toMatchObject({ ok: true });
      // (A session from memory is checked against the sessions epochs in Redis first: a promise.)
      expect(await relayed.gateway.caches.sessions.verify(other.token)).toMatchObject({ ok: true });

      link.restore();
      await waitFor(
        async () => (await keyStatus(relayed)) === 401 && (await sessionStatus(relayed)) === 401,
        {
          timeoutMs: 15_000,
          intervalMs: 100,
          what: 'the replica to verify again after its bus reconnected',
        },
      );
    }, 30_000);
  });

  describe('stalled request bodies', () => {
    let guarded: Started;

    beforeAll(async () => {
      guarded = await startGateway({ ...gatewayEnv(), BODY_TIMEOUT_MS: '3000' });
    });

    afterAll(async () => {
      await guarded?.close();
    });

    it('keeps sign-in answering in under a second while 300 connections stall their login bodies', async () => {
      const email = `s${namespace}@example.com`;
      await signIn(email);
      // The same sign-in on a quiet gateway: bcrypt (cost 12) alone takes a while on a busy machine.
      const quietStart = Date.now();
      await fetch(`${guarded.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.65' },
        body: JSON.stringify({ email, password: 'correct horse battery staple' }),
      });
      const quiet = Date.now() - quietStart;
      const stalled = Array.from({ length: 300 }, () =>
        stalledBody(guarded.url, '/auth/login', '203.0.113.66'),
      );
      try {
        // Every stalled connection has been taken in: the ones past the address's allowance answered.
        await waitFor(async () => stalled.every((s) => s.socket.writableLength === 0), {
          what: 'the stalled heads to be sent',
        });
        await new Promise((r) => setTimeout(r, 300));
        const started = Date.now();
        const login = await fetch(`${guarded.url}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.66' },
          body: JSON.stringify({ email, password: 'correct horse battery staple' }),
        });
        const took = Date.now() - started;

        expect(login.status).toBe(200);
        // Unguarded, every identity route waited about 29 s for one of the 256 upstream sockets.
        expect(took).toBeLessThan(quiet + 1000);
        const providersStart = Date.now();
        const providers = await fetch(`${guarded.url}/auth/providers`, {
          headers: { 'x-forwarded-for': '198.51.100.67' },
        });
        expect(providers.status).toBe(200);
        expect(Date.now() - providersStart).toBeLessThan(1000);
      } finally {
        const answers = await Promise.all(stalled.map((s) => s.answer));
        const status = (a: string) => /^HTTP\/1\.1 (\d{3})/.exec(a)?.[1];
        // The address's allowance of requests in flight waited for their bodies, then got 408;
        // the rest were refused at once.
        expect(answers.filter((a) => status(a) === '408')).toHaveLength(64);
        expect(answers.filter((a) => status(a) === '429')).toHaveLength(236);
      }
    }, 20_000);
  });

  describe('rate limits across key churn', () => {
    const spend = async (g: Started, key: string, times: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < times; i++) {
        const res = await fetch(`${g.url}${DATA}`, { headers: { 'x-api-key': key } });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      return statuses;
    };
    const revoke = async (g: Started, id: string, verb = 'revoke') => {
      const res = await fetch(`${g.url}/v1/keys/${id}/${verb}`, { method: 'POST', headers: { cookie } });
      expect(res.status).toBe(200);
    };

    it('starts a new key of the account where its revoked keys left the budget, on every replica', async () => {
      const startedAt = Date.now();
      const first = await newKey();
      const spentFirst = await spend(a, first.key, 11);
      // The bucket refills continuously: the refusal says it held less than one token when the
      // request was sent, a fraction that counts towards the next key's first grant.
      const exhaustedAt = Date.now();
      const refusedFirst = await spend(a, first.key, 1);
      expect([...spentFirst, ...refusedFirst].filter((s) => s === 200).length).toBeLessThanOrEqual(
        grantedSince(10, startedAt),
      );
      await revoke(b, first.id);
      const second = await newKey();
      const spentSecond = await spend(b, second.key, 5);
      // Started where the revoked key left the budget (spent), not full: fewer than one token
      // plus those refilled since (one each 6 s; on a loaded machine these steps may take that long).
      const refilled = ((Date.now() - exhaustedAt) * 10) / 60_000;
      if (refusedFirst[0] === 429) {
        expect(spentSecond.filter((s) => s === 200).length).toBeLessThanOrEqual(Math.floor(1 + refilled));
      }
      const third = await newKey();
      await revoke(a, second.id, 'REVOKE');
      const spentThird = await spend(a, third.key, 5);
      // Free plan, 10 a minute: three keys in a row were granted no more than one key's minute.
      const admitted = [...spentFirst, ...refusedFirst, ...spentSecond, ...spentThird].filter(
        (s) => s === 200,
      ).length;
      expect(admitted).toBeLessThanOrEqual(grantedSince(10, startedAt));
    });

    it('keeps a revoked key spent budget in memory buckets too, from the revocation event as well', async () => {
      const lonely = await startGateway({
        ...gatewayEnv(),
        REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      });
      try {
        const startedAt = Date.now();
        const first = await newKey();
        const spentFirst = await spend(lonely, first.key, 11);
        // Revoked through another replica: this one learns it from identity's event.
        await revoke(a, first.id);
        await waitFor(async () => (await spend(lonely, first.key, 1))[0] === 401, {
          what: 'the revocation to reach the replica with memory buckets',
        });
        const second = await newKey();
        const next = await spend(lonely, second.key, 3);
        // Both keys together within one minute's budget and what refilled since: the new key did
        // not start full (three more grants would pass it unless 18 s went by).
        const admitted = [...spentFirst, ...next].filter((s) => s === 200).length;
        expect(admitted).toBeLessThanOrEqual(grantedSince(10, startedAt));
      } finally {
        await lonely.close();
      }
    });
  });

  describe('cookie-authenticated changes from other sites', () => {
    const json = { 'content-type': 'application/json' };

    it('refuses a key made or revoked from another site, a sibling subdomain or with a form body', async () => {
      const answers = [];
      for (const headers of [
        { cookie, origin: 'https://evil.example' },
        { cookie, 'sec-fetch-site': 'same-site' },
        { cookie, 'sec-fetch-site': 'cross-site' },
        { cookie, origin: 'null' },
      ]) {
        const res = await fetch(`${a.url}/v1/keys`, { method: 'POST', headers });
        answers.push({ status: res.status, body: (await res.json()) as { error_category: string } });
      }
      expect(answers.map((r) => r.status)).toEqual([403, 403, 403, 403]);
      expect(answers[0]!.body.error_category).toBe('forbidden');
      for (const [type, body] of [
        ['application/x-www-form-urlencoded', 'name=x'],
        ['text/plain', '{"name":"x"}'],
        ['multipart/form-data; boundary=b', '--b--'],
      ]) {
        const res = await fetch(`${a.url}/v1/keys`, {
          method: 'POST',
          headers: { cookie, 'content-type': type! },
          body,
        });
        expect({ type, status: res.status }).toEqual({ type, status: 415 });
      }
      const { id } = await newKey();
      const revoke = await fetch(`${a.url}/v1/keys/${id}/revoke`, {
        method: 'POST',
        headers: { cookie, origin: 'https://keys.meridian.example.evil' },
      });
      expect(revoke.status).toBe(403);
      const twoFactor = await fetch(`${a.url}/v1/account/2fa/enrol`, {
        method: 'POST',
        headers: { cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
        body: '{}',
      });
      expect(twoFactor.status).toBe(403);
    });

    it('refuses a cross-site logout, and serves the same calls from our own site, by bearer or as JSON', async () => {
      const other = await signIn(`c${namespace}@example.com`);
      const out = await fetch(`${a.url}/auth/logout`, {
        method: 'POST',
        headers: { cookie: other.cookie, origin: 'https://evil.example' },
      });
      expect(out.status).toBe(403);
      const slashed = await fetch(`${a.url}/auth/logout/`, {
        method: 'POST',
        headers: { cookie: other.cookie, 'sec-fetch-site': 'cross-site' },
      });
      expect(slashed.status).toBe(403);
      expect((await fetch(`${a.url}/v1/account`, { headers: { cookie: other.cookie } })).status).toBe(200);
      const own = new URL(a.url).origin;
      const fromOurPage = await fetch(`${a.url}/v1/keys`, {
        method: 'POST',
        headers: { cookie: other.cookie, origin: own, 'sec-fetch-site': 'same-origin', ...json },
        body: '{}',
      });
      expect(fromOurPage.status).toBe(201);
      const byBearer = await fetch(`${a.url}/v1/keys`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${other.token}`,
          origin: 'https://evil.example',
          'content-type': 'text/plain',
        },
        body: '{}',
      });
      // Not a cross-site refusal (403): the body is refused for its type, as every JSON route does.
      expect(byBearer.status).toBe(415);
      const byBearerJson = await fetch(`${a.url}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.token}`, origin: 'https://evil.example', ...json },
        body: '{}',
      });
      expect(byBearerJson.status).toBe(201);
    });
  });
});
