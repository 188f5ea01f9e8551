import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { generate } from 'otplib';
import { EVENTS, RPC, SESSION_COOKIE, type CloudEvent } from '@meridian/contracts';
import { insertApiKey } from '../../src/db/repositories/api-keys.js';
import { insertLink } from '../../src/db/repositories/oidc.js';
import { replaceRecoveryCodes, setTwoFactor } from '../../src/db/repositories/two-factor.js';
import { newApiKey } from '../../src/domain/api-key.js';
import { hashToken } from '../../src/domain/secrets.js';
import { FLOW_COOKIE } from '../../src/routes/oauth.js';
import { startSession } from '../../src/flows/sessions.js';
import { freshEmail, linkIn, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, pressConfirmButton, signIn, signUpConfirmed, submitResetForm } from './flows.js';
import { OIDC_CLIENT, startOidcPeer, type OidcPeer } from '@meridian/test-peers';

const REDIRECT = 'http://localhost:8080/auth/oauth/idp/callback';

let h: Harness;
let idp: OidcPeer;

beforeAll(async () => {
  idp = await startOidcPeer(REDIRECT);
  h = await startHarness('identity_oidc', {
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: OIDC_CLIENT.id,
    OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
    OIDC_REDIRECT_URI: REDIRECT,
  });
});

afterAll(async () => {
  await h?.close();
  await idp?.close();
});

interface Started {
  authorizeUrl: URL;
  flowCookie: string;
}

async function begin(): Promise<Started> {
  const res = await request(h.app)
    .get('/auth/oauth/idp')
    .set(await anonymous());
  expect(res.status).toBe(302);
  const flowCookie = res.headers['set-cookie']![0]!.split(';')[0]!;
  expect(res.headers['set-cookie']![0]).toMatch(/HttpOnly/);
  return { authorizeUrl: new URL(res.headers.location!), flowCookie };
}

async function callback(back: URL, flowCookie: string, caller?: Record<string, string>) {
  return request(h.app)
    .get(`${new URL(REDIRECT).pathname}${back.search}`)
    .set(caller ?? (await anonymous()))
    .set('cookie', flowCookie);
}

/** A whole sign-in at the provider; answers the callback's answer. */
async function providerCallback(subject: string) {
  const started = await begin();
  const back = await idp.authorize(started.authorizeUrl, subject);
  return callback(back, started.flowCookie);
}

async function signInThroughProvider(subject: string) {
  const res = await providerCallback(subject);
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe('http://localhost:8080/');
  const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
    c.startsWith(`${SESSION_COOKIE}=`),
  )!;
  const token = cookie.split(';')[0]!.slice(SESSION_COOKIE.length + 1);
  const verified = await h.bus.request<{ account_id: string }>(RPC.identitySessionVerify, { token });
  if (!verified.ok) throw new Error('the session does not verify');
  return verified.data.account_id;
}

/** A refused sign-in: 400 `oidc_refused` with the reason, and no session cookie. */
function expectRefused(res: request.Response, why: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.error_category).toBe('oidc_refused');
  expect(res.body.detail).toMatch(why);
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  expect(cookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
}

const UNVERIFIED = /the provider did not verify the email address; sign up with your email and a password/;

async function linkOf(subject: string) {
  return h.deps.db
    .selectFrom('oidc_links')
    .select('account_id')
    .where('subject', '=', subject)
    .executeTakeFirst();
}

async function accountOf(email: string) {
  return h.deps.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
}

/** Mails queued for an address; the outbox row is written in the transaction of the change. */
async function mailsQueuedTo(email: string) {
  return h.deps.db.selectFrom('mail_outbox').select('subject').where('recipient', '=', email).execute();
}

async function sessionsOf(accountId: string) {
  return h.deps.db.selectFrom('sessions').select('id').where('account_id', '=', accountId).execute();
}

/** An account made by a password signup and not confirmed yet; answers its id. */
async function signUpUnconfirmed(email: string, password = STRONG_PASSWORD): Promise<string> {
  const signup = await request(h.app)
    .post('/auth/signup')
    .set(await anonymous())
    .send({ email, password });
  expect(signup.status).toBe(202);
  return (await accountOf(email))!.id;
}

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

  it('refuses an email the provider does not verify: no account, no link, no mail', async () => {
    const email = freshEmail();
    idp.people.set('ivy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('ivy-sub'), UNVERIFIED);
    expect(await accountOf(email)).toBeUndefined();
    expect(await linkOf('ivy-sub')).toBeUndefined();
    expect(await mailsQueuedTo(email)).toEqual([]);
  });

  it("gives an unverified claim on a confirmed account's address no session and no link", async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    const mailsBefore = await mailsQueuedTo(email);
    const sessionsBefore = await sessionsOf(owner.account_id);
    idp.people.set('mallory-sub', { email, email_verified: false });
    expectRefused(await providerCallback('mallory-sub'), UNVERIFIED);
    expect(await linkOf('mallory-sub')).toBeUndefined();
    expect(await sessionsOf(owner.account_id)).toEqual(sessionsBefore);
    expect(await mailsQueuedTo(email)).toEqual(mailsBefore);
  });

  it("leaves an unverified claim on a fresh address no way in once the address's owner signs up", async () => {
    const email = freshEmail();
    idp.people.set('trudy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('trudy-sub'), UNVERIFIED);
    expect(await accountOf(email)).toBeUndefined();
    // The address's owner signs up and confirms it; the identity still gets neither link nor session.
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    const sessionsBefore = await sessionsOf(owner.account_id);
    expectRefused(await providerCallback('trudy-sub'), UNVERIFIED);
    expect(await linkOf('trudy-sub')).toBeUndefined();
    expect(await sessionsOf(owner.account_id)).toEqual(sessionsBefore);
  });

  it('refuses a link to an unconfirmed account, and drops it when the address is confirmed', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email);
    // A link the earlier code could make on an unverified claim; none is made over HTTP any more.
    await insertLink(h.deps.db, idp.issuer, 'legacy-sub', id);
    idp.people.set('legacy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('legacy-sub'), /has not confirmed its email address/);
    expect(await sessionsOf(id)).toEqual([]);

    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)))).status).toBe(200);
    expect(await linkOf('legacy-sub')).toBeUndefined();
    expectRefused(await providerCallback('legacy-sub'), UNVERIFIED);
    expect(await sessionsOf(id)).toEqual([]);
  });

  it('keeps a link made after the address was confirmed when an older confirmation link is used', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email);
    const confirmation = linkIn(await h.mailTo(email));
    idp.people.set('heidi-sub', { email, email_verified: true });
    expect(await signInThroughProvider('heidi-sub')).toBe(id);
    expect((await pressConfirmButton(h, confirmation)).status).toBe(200);
    expect(await linkOf('heidi-sub')).toEqual({ account_id: id });
  });

  it("asks userinfo whether the ID token's address is verified when the token does not say", async () => {
    const email = freshEmail();
    idp.people.set('split-sub', { email, email_verified: true, inIdToken: ['email'] });
    const id = await signInThroughProvider('split-sub');
    expect(await linkOf('split-sub')).toEqual({ account_id: id });
    expect((await accountOf(email))?.id).toBe(id);
    // Userinfo saying it is not verified still refuses.
    idp.people.set('split-unverified-sub', {
      email: freshEmail(),
      email_verified: false,
      inIdToken: ['email'],
    });
    expectRefused(await providerCallback('split-unverified-sub'), UNVERIFIED);
  });

  it('takes an ID token that says both the address and its verification as it is', async () => {
    const email = freshEmail();
    idp.people.set('whole-sub', { email, email_verified: true, inIdToken: ['email', 'email_verified'] });
    const id = await signInThroughProvider('whole-sub');
    expect((await accountOf(email))?.id).toBe(id);
  });

  it('refuses an identity that shares no email, and makes no account for it', async () => {
    idp.people.set('nomail-sub', { email_verified: false });
    const accounts = async () =>
      (
        await h.deps.db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await accounts();
    const res = await providerCallback('nomail-sub');
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('oidc_refused');
    expect(res.body.detail).toMatch(/no email address/);
    expect(await linkOf('nomail-sub')).toBeUndefined();
    expect(await accounts()).toBe(before);
  });

  it('drops the links of an account never confirmed when its password is reset through the mail', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email, 'squatter-chosen-passphrase-31');
    await insertLink(h.deps.db, idp.issuer, 'sneaky-sub', id);
    // The owner ignores the confirmation mail and resets the password through the second one.
    const forgot = await request(h.app)
      .post('/auth/password/forgot')
      .set(await anonymous())
      .send({ email });
    expect(forgot.status).toBe(202);
    const link = linkIn(await h.mailTo(email, 2));
    expect(link.pathname).toBe('/auth/password/reset');
    const newPassword = 'saffron-lighthouse-cobble-93';
    expect((await submitResetForm(h, link, newPassword)).status).toBe(200);

    expect(await linkOf('sneaky-sub')).toBeUndefined();
    idp.people.set('sneaky-sub', { email, email_verified: false });
    expectRefused(await providerCallback('sneaky-sub'), UNVERIFIED);
    expect(await linkOf('sneaky-sub')).toBeUndefined();
    expect((await signIn(h, email, newPassword)).account_id).toBe(id);
  });

  it('disowns an unconfirmed account before linking it: the squatter keeps no password, session, key or 2FA', async () => {
    const email = freshEmail();
    const squatter = 'squatter-chosen-passphrase-31';
    const id = await signUpUnconfirmed(email, squatter);
    // What a creator could hold; none of it is reachable over HTTP before confirmation, so planted here.
    const session = await h.deps.db.transaction().execute((trx) => startSession(trx, h.deps, id, 'password'));
    const key = newApiKey();
    const { id: keyId, prefix, salt, secretHash } = key;
    await insertApiKey(h.deps.db, {
      id: keyId,
      prefix,
      salt,
      secret_hash: secretHash,
      account_id: id,
      created_at: new Date(),
    });
    await setTwoFactor(h.deps.db, id, { totp_state: 'active', totp_secret_sealed: 'sealed-by-squatter' });
    await replaceRecoveryCodes(h.deps.db, id, ['squatter-recovery-hash']);
    await insertLink(h.deps.db, idp.issuer, 'squatter-sub', id);

    idp.people.set('owner-sub', { email, email_verified: true });
    expect(await signInThroughProvider('owner-sub')).toBe(id);

    const login = await request(h.app)
      .post('/auth/login')
      .set(await anonymous())
      .send({ email, password: squatter });
    expect(login.status).toBe(401);
    expect(await linkOf('squatter-sub')).toBeUndefined();
    expect((await h.bus.request(RPC.identitySessionVerify, { token: session.token })).ok).toBe(false);
    expect((await h.bus.request(RPC.identityKeyVerify, { key: key.key })).ok).toBe(false);
    const account = await h.deps.db
      .selectFrom('accounts')
      .select(['password_hash', 'totp_state', 'totp_secret_sealed', 'email_confirmed_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({
      password_hash: null,
      totp_state: 'off',
      totp_secret_sealed: null,
      email_confirmed_at: expect.any(Date),
    });
    const codes = await h.deps.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('account_id', '=', id)
      .execute();
    expect(codes).toEqual([]);
    const announced = (await h.deps.db.selectFrom('outbox').select('payload').execute()).map(
      (r) => r.payload as CloudEvent<{ account_id: string; session_id?: string; key_id?: string }>,
    );
    expect(announced).toContainEqual(
      expect.objectContaining({
        type: EVENTS.identitySessionRevoked,
        data: expect.objectContaining({ session_id: session.session_id }),
      }),
    );
    expect(announced).toContainEqual(
      expect.objectContaining({
        type: EVENTS.identityKeyRevoked,
        data: expect.objectContaining({ key_id: key.id }),
      }),
    );
  });

  it('owes the second factor when the account has TOTP on: a challenge cookie, no session', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const { secret } = (await request(h.app).post('/v1/account/2fa/enrol').set(me.headers)).body.data;
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
});
