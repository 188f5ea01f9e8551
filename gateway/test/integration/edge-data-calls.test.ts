// Data calls through the edge with the real identity service, two replicas and Redis: keys and
// sessions served, refused or gated, the x402 challenge, and rate limits shared by the replicas.
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createNatsBus } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { RPC } from '@meridian/contracts';
import { createLogger } from '@meridian/observability';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { start as startGateway } from '../../src/main.js';
import {
  CHALLENGE,
  DATA,
  INVALID_TOKEN,
  base62,
  grantedSince,
  startEdge,
  type Edge,
  type Started,
} from './support/edge.js';

describe('gateway edge data calls with the real identity service, two replicas and Redis', () => {
  let edge: Edge;
  let namespace: string;
  let a: Started;
  let b: Started;
  let cookie: string;

  beforeAll(async () => {
    edge = await startEdge('gw_edge_data');
    ({ namespace, a, b, cookie } = edge);
  }, 60_000);

  afterAll(async () => {
    await edge?.close();
  });

  const gatewayEnv = () => edge.gatewayEnv();
  const signIn = (email: string) => edge.signIn(email);
  const newKey = (sessionCookie?: string) => edge.newKey(sessionCookie);

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
        url: TEST_NATS_URL,
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
});
