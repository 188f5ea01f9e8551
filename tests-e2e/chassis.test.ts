import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INTERNAL_ASSERTION_HEADER } from '@meridian/contracts';
import { startSmtp } from '@meridian/test-peers';
import { signedInAccount, type SignedIn } from './src/accounts.js';
import { startSystem, type ServiceName, type System } from './src/system.js';

/** A path each service owns behind the gateway (x402 serves no route yet: every path is gated). */
const OWNED_PATHS: Record<ServiceName, string> = {
  identity: '/v1/account',
  billing: '/v1/credits',
  analysis: '/v1/analysis/domains',
  data: '/v1/data/crypto/spot/reference_price?entity=BTC-USD',
  x402: '/v1/x402/verify',
  requests: '/v1/requests',
};

const NOT_FROM_GATEWAY = 'This request did not come through the gateway.';
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An assertion of an anonymous caller (the gateway's own shape), unsigned or signed with `secret`. */
function assertion(secret: string | undefined): string {
  const now = Math.floor(Date.now() / 1000);
  const claims = b64url({
    iss: 'meridian-gateway',
    iat: now,
    exp: now + 60,
    caller: { account_id: null, plan: null, auth: 'anonymous', key_id: null, session_id: null },
  });
  if (secret === undefined) return `${b64url({ alg: 'none' })}.${claims}.`;
  const signed = `${b64url({ alg: 'HS256' })}.${claims}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

describe('the whole system, each service its own process', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    system = await startSystem('e2e_chassis', { SMTP_URL: smtp.url });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await smtp?.close();
  });

  it('answers /health at the gateway and /health, /ready, /metrics at every service', async () => {
    expect((await fetch(`${system.gatewayUrl}/health`)).status).toBe(200);
    for (const url of Object.values(system.serviceUrls)) {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
      expect(metrics).toContain('http_request_duration_seconds');
    }
  });

  it('refuses a request with forged caller headers sent straight to any service port', async () => {
    const forgeries = [
      {},
      { [INTERNAL_ASSERTION_HEADER]: assertion(undefined) },
      { [INTERNAL_ASSERTION_HEADER]: assertion(randomBytes(32).toString('hex')) },
    ];
    for (const [name, url] of Object.entries(system.serviceUrls) as [ServiceName, string][]) {
      for (const headers of forgeries) {
        const res = await fetch(`${url}${OWNED_PATHS[name]}`, {
          headers: { 'x-account-id': 'a1', ...headers },
        });
        expect({ name, headers, status: res.status }).toEqual({ name, headers, status: 401 });
        expect(await res.json()).toMatchObject({ error_category: 'unauthorized', detail: NOT_FROM_GATEWAY });
      }
      // Signed with the system's secret the same request gets past that check to the service's own rules.
      const genuine = await fetch(`${url}${OWNED_PATHS[name]}`, {
        headers: { [INTERNAL_ASSERTION_HEADER]: assertion(system.env.INTERNAL_AUTH_SECRET!) },
      });
      expect(((await genuine.json()) as { detail: string }).detail).not.toBe(NOT_FROM_GATEWAY);
    }
  });

  it('answers an unowned path with a routing 404 problem', async () => {
    const res = await fetch(`${system.gatewayUrl}/v2/unknown`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error_category: string }).error_category).toBe('route_not_found');
  });

  // Each path is owned by one service; with a session the gateway forwards it, so any answer but 503
  // (the service's own 404 included) proves it got there.
  const PORTAL_PATHS = {
    identity: '/v1/account',
    billing: '/v1/credits',
    analysis: '/v1/analysis/domains',
    requests: '/v1/requests',
    data: '/v1/catalog',
  } as const;

  async function statuses(session: SignedIn['session']): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [service, path] of Object.entries(PORTAL_PATHS)) {
      const res = await fetch(`${system.gatewayUrl}${path}`, {
        headers: { authorization: `Bearer ${session}` },
      });
      out[service] = res.status;
    }
    return out;
  }

  it('keeps answering for the other services when one is killed', async () => {
    const { session } = await signedInAccount(system, smtp, 'chassis');
    const before = await statuses(session);
    expect(Object.values(before)).not.toContain(503);
    expect(before.identity).toBe(200);

    await system.kill('data');
    const down = await fetch(`${system.gatewayUrl}/v1/catalog`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
    expect(await statuses(session)).toEqual({ ...before, data: 503 });

    await system.kill('billing');
    expect(await statuses(session)).toEqual({ ...before, data: 503, billing: 503 });
    expect((await fetch(`${system.gatewayUrl}/health`)).status).toBe(200);
  });
});
