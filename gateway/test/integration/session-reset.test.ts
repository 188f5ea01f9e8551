import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { start as startGateway } from '../../src/main.js';
import { REDIS_URL, startIdentityPeer, type IdentityPeer } from './identity-peer.js';

type Started = Awaited<ReturnType<typeof startGateway>>;
const DATA = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const JSON_BODY = { 'content-type': 'application/json' };

/**
 * A password reset ends every session of the account: by the time its answer arrives, no gateway
 * replica may still vouch for one of them from its cache (the revocation events come later).
 */
describe('gateway: sessions end on every replica before a password reset answers', () => {
  let peer: IdentityPeer;
  let a: Started;
  let b: Started;

  beforeAll(async () => {
    peer = await startIdentityPeer('gw_reset');
    const env = { ...peer.env(), REDIS_URL, RATE_LIMIT_PREFIX: `test:${peer.namespace}:` };
    a = await startGateway(env);
    b = await startGateway(env);
  }, 90_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await peer?.close();
  });

  /** A data call with the session cookie: 200 while a replica vouches for it, else the x402 challenge. */
  const read = async (gateway: Started, cookie: string) =>
    (await fetch(`${gateway.url}${DATA}`, { headers: { cookie } })).status;

  it('refuses the old session on both replicas at once after the reset, and serves a new one', async () => {
    const email = `reset-${peer.namespace}@example.com`;
    const cookie = await peer.signIn(a.url, email);
    // Both replicas hold the session in their caches.
    for (const gateway of [a, b, a, b]) expect(await read(gateway, cookie)).toBe(200);

    const forgot = await fetch(`${a.url}/auth/password/forgot`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ email }),
    });
    expect(forgot.status).toBe(202);
    const token = await peer.mailedToken(email, 'password/reset');
    const reset = await fetch(`${a.url}/auth/password/reset`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ token, password: 'a different horse battery staple' }),
    });
    expect(reset.status).toBe(200);
    expect((await reset.json()) as object).toMatchObject({ data: { sessions_revoked: 1 } });
    expect(reset.headers.get('x-sessions-epoch')).toBeNull();
    // At once, before any revocation event could reach them: neither replica serves the session.
    expect(await Promise.all([read(b, cookie), read(a, cookie)])).toEqual([402, 402]);

    const login = await fetch(`${b.url}/auth/login`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ email, password: 'a different horse battery staple' }),
    });
    expect(login.status).toBe(200);
    const fresh = login.headers.get('set-cookie')!.split(';')[0]!;
    for (const gateway of [a, b, a, b]) expect(await read(gateway, fresh)).toBe(200);
  });
});
