import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SESSION_COOKIE } from '@meridian/contracts';
import { OIDC_CLIENT, startOidcPeer, type OidcPeer } from '@meridian/test-peers';
import { startSystem, type System } from './src/system.js';

/** The redirect the provider knows; the test carries the browser's return leg to the real gateway. */
const REDIRECT = 'http://localhost:8080/auth/oauth/idp/callback';

describe('OpenID Connect sign-in through the gateway, every service its own process', () => {
  let system: System;
  let idp: OidcPeer;

  beforeAll(async () => {
    idp = await startOidcPeer(REDIRECT);
    system = await startSystem('e2e_oidc', {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: OIDC_CLIENT.id,
      OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
      OIDC_REDIRECT_URI: REDIRECT,
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await idp?.close();
  });

  it('lists the provider, signs a person in, and the session opens the portal', async () => {
    const providers = (await (await fetch(`${system.gatewayUrl}/auth/providers`)).json()) as {
      data: { providers: { id: string }[] };
    };
    expect(providers.data.providers.map((p) => p.id)).toEqual(['idp']);

    const begin = await fetch(`${system.gatewayUrl}/auth/oauth/idp`, { redirect: 'manual' });
    expect(begin.status).toBe(302);
    const authorizeUrl = new URL(begin.headers.get('location')!);
    expect(authorizeUrl.origin).toBe(idp.issuer);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const flowCookie = begin.headers.getSetCookie()[0]!.split(';')[0]!;

    const email = `oidc.${Date.now()}@example.com`;
    idp.people.set('e2e-sub', { email, email_verified: true });
    const back = await idp.authorize(authorizeUrl, 'e2e-sub');
    const done = await fetch(`${system.gatewayUrl}${back.pathname}${back.search}`, {
      redirect: 'manual',
      headers: { cookie: flowCookie },
    });
    expect(done.status).toBe(302);
    const session = done.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${SESSION_COOKIE}=`))!
      .split(';')[0]!;

    const account = await fetch(`${system.gatewayUrl}/v1/account`, { headers: { cookie: session } });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ data: { email, plan: 'free' } });

    const replayed = await fetch(`${system.gatewayUrl}${back.pathname}${back.search}`, {
      redirect: 'manual',
      headers: { cookie: flowCookie },
    });
    expect(replayed.status).not.toBe(302);
  });
});
