// The edge's portal sessions with the real identity service, two replicas and Redis: who a session
// lets through, how a signed-out or revoked one stops on every replica (also after the bus comes
// back), and cookie-authenticated changes refused from other sites.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cuttableLink, waitFor, type CuttableLink } from '@meridian/bus/testing';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { start as startGateway } from '../../src/main.js';
import {
  CHALLENGE,
  DATA,
  INVALID_TOKEN,
  sessionGatedRoutes,
  startEdge,
  type Edge,
  type Started,
} from './support/edge.js';

describe('gateway edge sessions with the real identity service, two replicas and Redis', () => {
  let edge: Edge;
  let namespace: string;
  let a: Started;
  let b: Started;
  let cookie: string;
  let sessionToken: string;

  beforeAll(async () => {
    edge = await startEdge('gw_edge_sessions');
    ({ namespace, a, b, cookie, sessionToken } = edge);
  }, 60_000);

  afterAll(async () => {
    await edge?.close();
  });

  const gatewayEnv = () => edge.gatewayEnv();
  const signIn = (email: string) => edge.signIn(email);
  const newKey = (sessionCookie?: string) => edge.newKey(sessionCookie);

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

  describe('after the bus reconnects', () => {
    let link: CuttableLink;
    let relayed: Started;

    beforeAll(async () => {
      link = await cuttableLink(TEST_NATS_URL);
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
