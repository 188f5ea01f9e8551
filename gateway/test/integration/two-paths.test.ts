import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { formatApiKey } from '@meridian/contracts';
import { startServer, type RunningServer } from '@meridian/http-kit';
import { start as startGateway } from '../../src/main.js';
import { startIdentityPeer, type IdentityPeer } from './identity-peer.js';

type Started = Awaited<ReturnType<typeof startGateway>>;
const DATA = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const ALLOWED = 'https://app.example';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
/** The answer fields the two paths must agree on, besides the traceparent (compared apart). */
const COMPARED =
  /^(access-control-|vary$|ratelimit|retry-after$|www-authenticate$|payment-required$|payment-response$|cache-control$|content-type$|connection$|x-request-id$)/;

interface Seen {
  status: number;
  fields: Record<string, string>;
  traceparent: string | null;
  body: unknown;
}

/**
 * The gateway sends data calls to its lean listener and everything else to its express app; the
 * express app serves a data call with the same steps. The same request through both must get the
 * same answer fields and refusals, so the two cannot drift apart: each case below is sent to the
 * gateway's own port (the lean path) and to a server on its express app, one gateway behind both.
 */
describe('gateway: the lean data path and the express path answer alike', () => {
  let peer: IdentityPeer;
  let gateway: Started;
  let express: RunningServer;
  /** Two keys of one free account (identity's most): a first call of its bucket on each path. */
  let keys: [string, string];
  let n = 0;

  beforeAll(async () => {
    peer = await startIdentityPeer('gw_two_paths');
    gateway = await startGateway({
      ...peer.env(),
      CORS_ORIGINS: ALLOWED,
      PUBLIC_BASE_URL: 'https://api.example',
      RATE_LIMITS: 'free=4',
      ACCOUNT_RATE_MULTIPLE: '10',
    });
    express = await startServer(gateway.gateway.app, { port: 0 });
    const cookie = await peer.signIn(gateway.url, `paths-${peer.namespace}@example.com`);
    keys = [await peer.newKey(gateway.url, cookie), await peer.newKey(gateway.url, cookie)];
  }, 90_000);

  afterAll(async () => {
    await express?.close();
    await gateway?.close();
    await peer?.close();
  });

  const ask = async (base: string, headers: Record<string, string>, method = 'GET'): Promise<Seen> => {
    const res = await fetch(`${base}${DATA}`, { method, headers });
    const fields: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (COMPARED.test(name)) fields[name] = value;
    });
    const text = await res.text();
    const json =
      res.headers.get('content-type')?.includes('json') && text ? (JSON.parse(text) as unknown) : text;
    return { status: res.status, fields, traceparent: res.headers.get('traceparent'), body: json };
  };

  /**
   * The same request (the same request id and trace) through the lean path, then the express one;
   * `expressHeaders` in place of `headers` where a case needs a bucket of each path's own.
   */
  const both = async (
    headers: Record<string, string>,
    method = 'GET',
    expressHeaders = headers,
  ): Promise<[Seen, Seen]> => {
    const id = `two-paths-${++n}`;
    const trace = { 'x-request-id': id, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` };
    const lean = await ask(gateway.url, { ...headers, ...trace }, method);
    const viaExpress = await ask(express.url, { ...expressHeaders, ...trace }, method);
    for (const seen of [lean, viaExpress]) {
      expect(seen.fields['x-request-id']).toBe(id);
      // The trace goes on with a span of the edge's own.
      expect(seen.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      expect(seen.traceparent).not.toContain('00f067aa0ba902b7');
    }
    return [lean, viaExpress];
  };

  const expectAlike = ([lean, viaExpress]: [Seen, Seen]) => {
    expect(viaExpress.status).toBe(lean.status);
    expect(viaExpress.fields).toEqual(lean.fields);
    expect(viaExpress.body).toEqual(lean.body);
  };

  it('answers a preflight from an allowed origin, and one from a refused origin, alike', async () => {
    const preflight = { origin: ALLOWED, 'access-control-request-method': 'GET' };
    const allowed = await both(preflight, 'OPTIONS');
    expect(allowed[0].status).toBe(204);
    expect(allowed[0].fields['access-control-allow-origin']).toBe(ALLOWED);
    expect(allowed[0].fields['access-control-allow-headers']).toContain('X-API-Key');
    expectAlike(allowed);
    const refused = await both({ ...preflight, origin: 'https://elsewhere.example' }, 'OPTIONS');
    expect(refused[0].status).toBe(204);
    expect(Object.keys(refused[0].fields).filter((f) => f.startsWith('access-control-'))).toEqual([]);
    expectAlike(refused);
  });

  it('serves a valid key from an allowed origin with the same CORS and rate-limit fields', async () => {
    // A key each, so each path's call is the first of its bucket.
    const [lean, viaExpress] = await both({ origin: ALLOWED, 'x-api-key': keys[0] }, 'GET', {
      origin: ALLOWED,
      'x-api-key': keys[1],
    });
    expect(lean.status).toBe(200);
    expect(lean.fields).toMatchObject({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-credentials': 'true',
      'ratelimit-limit': '4',
      'ratelimit-remaining': '3',
      'ratelimit-policy': '"per-key";q=4;w=60',
    });
    expect(viaExpress.status).toBe(200);
    expect(viaExpress.fields).toEqual(lean.fields);
    for (const seen of [lean, viaExpress])
      expect(seen.body).toMatchObject({ meta: { caller: { auth: 'api_key', plan: 'free' } } });
  });

  it('refuses a keyless call with the same x402 challenge, whatever the origin', async () => {
    const allowed = await both({ origin: ALLOWED });
    expect(allowed[0].status).toBe(402);
    expect(allowed[0].fields['payment-required']).toBeDefined();
    expect(allowed[0].body).toMatchObject({
      x402Version: 2,
      resource: { url: `https://api.example${DATA}` },
    });
    expectAlike(allowed);
    const refused = await both({ origin: 'https://elsewhere.example' });
    expect(refused[0].status).toBe(402);
    expect(refused[0].fields['access-control-allow-origin']).toBeUndefined();
    expectAlike(refused);
  });

  it('refuses a missing, a malformed and an unknown key with the same 401', async () => {
    const missing = await both({ origin: ALLOWED, authorization: 'Basic dXNlcjpwYXNz' });
    expect(missing[0].status).toBe(401);
    expect(missing[0].fields['www-authenticate']).toBe('Bearer realm="meridian"');
    expectAlike(missing);
    const malformed = await both({ origin: ALLOWED, 'x-api-key': 'not-a-key' });
    expect(malformed[0].fields['www-authenticate']).toBe('Bearer realm="meridian", error="invalid_token"');
    expectAlike(malformed);
    // A key of identity's format (a valid checksum) that identity never issued.
    const unknown = await both({
      origin: ALLOWED,
      'x-api-key': formatApiKey('A'.repeat(12), 'b'.repeat(32)),
    });
    expect(unknown[0].status).toBe(401);
    expectAlike(unknown);
  });

  it('refuses a key whose budget is spent with the same 429 and rate-limit fields', async () => {
    const key = keys[0];
    // Its first call was the one above: three more spend the free plan's four a minute.
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${gateway.url}${DATA}`, { headers: { 'x-api-key': key } })).status).toBe(200);
    const spent = await both({ origin: ALLOWED, 'x-api-key': key });
    expect(spent[0].status).toBe(429);
    expect(spent[0].fields).toMatchObject({
      'ratelimit-remaining': '0',
      'access-control-allow-origin': ALLOWED,
    });
    expect(spent[0].fields['retry-after']).toMatch(/^\d+$/);
    expect(spent[0].body).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expectAlike(spent);
  });

  it('refuses another method on a metric with the same 405 before any credential', async () => {
    const wrong = await both({ origin: ALLOWED, 'x-api-key': 'not-a-key' }, 'DELETE');
    expect(wrong[0].status).toBe(405);
    expectAlike(wrong);
  });
});
