// OpenID Connect sign-in's flow: the provider listed, state, nonce and PKCE sent and checked, codes
// used once, the account found again by subject, and the second factor still owed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { generate } from 'otplib';
import { SESSION_COOKIE } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import type { OidcPeer } from '@meridian/test-peers';
import { hashToken } from '../../src/domain/secrets.js';
import { FLOW_COOKIE } from '../../src/routes/oauth.js';
import { freshEmail, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, signIn, signUpConfirmed } from './flows.js';
import { providerSignIn, startOidcBed } from './support/oidc-calls.js';

let h: Harness;
let idp: OidcPeer;
const { begin, callback, signInThroughProvider } = providerSignIn(() => ({ h, idp }));

beforeAll(async () => {
  ({ h, idp } = await startOidcBed('identity_oidc_flow'));
});

afterAll(async () => {
  await h?.close();
  await idp?.close();
});

describe('OpenID Connect sign-in', () => {
  it('lists the configured provider', async () => {
    const res = await request(h.app)
      .get('/auth/providers')
      .set(await anonymous());
    expect(res.body.data.providers).toEqual([
      { id: 'idp', name: 'Identity provider', authorize_url: '/auth/oauth/idp' },
    ]);
  });

  it('redirects with state, nonce and PKCE, creates an account, and finds it again by subject', async () => {
    const started = await begin();
    const params = started.authorizeUrl.searchParams;
    expect(started.authorizeUrl.origin).toBe(idp.issuer);
    for (const name of ['state', 'nonce', 'code_challenge'])
      expect(params.get(name)?.length).toBeGreaterThan(20);
    expect(params.get('code_challenge_method')).toBe('S256');

    idp.people.set('alice-sub', { email: freshEmail(), email_verified: true });
    const first = await signInThroughProvider('alice-sub');
    const again = await signInThroughProvider('alice-sub');
    expect(again).toBe(first);
  });

  it('owes the second factor when the account has TOTP on: a challenge cookie, no session', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const { secret } = (
      await request(h.app).post('/v1/account/2fa/enrol').set(me.headers).send({ password: STRONG_PASSWORD })
    ).body.data;
    const activated = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(me.headers)
      .send({ code: await generate({ secret }) });
    expect(activated.status).toBe(200);
    // Linked by its owner, signed in.
    idp.people.set('grace-sub', { email, email_verified: true });
    const linking = await begin();
    const linked = await callback(
      await idp.authorize(linking.authorizeUrl, 'grace-sub'),
      linking.flowCookie,
      me.headers,
    );
    expect(linked.headers.location).toBe('http://localhost:8080/?provider_linked=idp');

    const started = await begin();
    const back = await idp.authorize(started.authorizeUrl, 'grace-sub');
    const res = await callback(back, started.flowCookie);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://localhost:8080/?two_factor=required');
    const cookies = res.headers['set-cookie'] as unknown as string[];
    expect(cookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    const challengeCookie = cookies.find((c) => c.startsWith('meridian_2fa='))!;
    expect(challengeCookie).toMatch(/HttpOnly/);
    expect(challengeCookie).toMatch(/Path=\/auth\/2fa/);
    expect(challengeCookie).toMatch(/SameSite=Strict/);

    const verify = async (code: string) =>
      request(h.app)
        .post('/auth/2fa/verify')
        .set(await anonymous())
        .set('cookie', challengeCookie.split(';')[0]!)
        .send({ code });
    expect((await verify('000000')).status).toBe(403);
    const done = await verify(await generate({ secret, epoch: Date.now() / 1000 + 30 }));
    expect(done.status).toBe(200);
    const session = await h.deps.db
      .selectFrom('sessions')
      .select(['account_id', 'method'])
      .where('id', '=', done.body.data.session_id)
      .executeTakeFirstOrThrow();
    expect(session).toEqual({ account_id: me.account_id, method: 'oidc' });
    expect((done.headers['set-cookie'] as unknown as string[]).join('\n')).toMatch(/meridian_2fa=;/);
  });

  it('refuses a wrong state', async () => {
    idp.people.set('carol-sub', { email: freshEmail(), email_verified: true });
    const started = await begin();
    const back = await idp.authorize(started.authorizeUrl, 'carol-sub');
    back.searchParams.set('state', 'forged-state-value-0123456789');
    const res = await callback(back, started.flowCookie);
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('oidc_refused');
  });

  it('refuses an ID token carrying another nonce', async () => {
    idp.people.set('dave-sub', { email: freshEmail(), email_verified: true });
    const started = await begin();
    started.authorizeUrl.searchParams.set('nonce', 'a-nonce-this-browser-never-got-0123');
    const back = await idp.authorize(started.authorizeUrl, 'dave-sub');
    const res = await callback(back, started.flowCookie);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nonce/);
  });

  it('refuses a replayed code, and a callback from a browser that began no sign-in', async () => {
    idp.people.set('erin-sub', { email: freshEmail(), email_verified: true });
    const started = await begin();
    const back = await idp.authorize(started.authorizeUrl, 'erin-sub');
    expect((await callback(back, started.flowCookie)).status).toBe(302);
    const used = await callback(back, started.flowCookie);
    expect(used.status).toBe(400);
    expect(used.body.detail).toMatch(/no sign-in was started from this browser/);
    // The same flow again (state, nonce, PKCE verifier made usable by hand), so that the code's
    // reuse is the only thing wrong: the provider refuses the code it already redeemed.
    const browser = started.flowCookie.slice(`${FLOW_COOKIE}=`.length);
    await h.deps.db
      .updateTable('oidc_flows')
      .set({ used_at: null })
      .where('browser_hash', '=', hashToken(decodeURIComponent(browser)))
      .execute();
    const replay = await callback(back, started.flowCookie);
    expect(replay.status).toBe(400);
    expect(replay.body.error_category).toBe('oidc_refused');
    expect(replay.body.detail).toMatch(/invalid_grant/);
    const stranger = await request(h.app)
      .get(`/auth/oauth/idp/callback${back.search}`)
      .set(await anonymous());
    expect(stranger.status).toBe(400);
    expect(stranger.body.detail).toMatch(/no sign-in was started from this browser/);
  });

  it('answers 404 for an unknown provider', async () => {
    expect(
      (
        await request(h.app)
          .get('/auth/oauth/nobody')
          .set(await anonymous())
      ).status,
    ).toBe(404);
  });

  it('enrols TOTP for an account without a password only from a sign-in of the last 5 minutes', async () => {
    idp.people.set('no-password-sub', { email: freshEmail(), email_verified: true });
    const accountId = await signInThroughProvider('no-password-sub');
    const session = await h.deps.db
      .selectFrom('sessions')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    const headers = await callerHeaders({
      account_id: accountId,
      plan: 'free',
      auth: 'session',
      session_id: session.id,
    });
    const enrol = () => request(h.app).post('/v1/account/2fa/enrol').set(headers).send({});
    expect((await enrol()).status).toBe(200);
    await h.deps.db
      .updateTable('sessions')
      .set({ created_at: new Date(Date.now() - 6 * 60_000) })
      .where('id', '=', session.id)
      .execute();
    const stale = await enrol();
    expect([stale.status, stale.body.error_category]).toEqual([403, 'reauthentication_required']);
    expect(stale.body.detail).toMatch(/sign in again/);
  });
});
