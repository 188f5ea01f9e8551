import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SESSION_COOKIE } from '@meridian/contracts';
import { OIDC_CLIENT, startOidcPeer, type OidcPeer } from '@meridian/test-peers';
import { freshEmail, linkIn, startHarness, type Harness } from './harness.js';
import { anonymous, pressConfirmButton, signIn, signUpConfirmed, type SignedIn } from './flows.js';

const REDIRECT = 'http://localhost:8080/auth/oauth/idp/callback';
const NEW_PASSWORD = 'saffron-lighthouse-cobble-93';

let h: Harness;
let idp: OidcPeer;

beforeAll(async () => {
  idp = await startOidcPeer(REDIRECT);
  h = await startHarness('identity_provider_links', {
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

/** A whole provider sign-in as `subject`, from a browser signed in as `caller` or from none. */
async function providerCallback(subject: string, caller?: SignedIn) {
  const begun = await request(h.app)
    .get('/auth/oauth/idp')
    .set(await anonymous());
  const flowCookie = begun.headers['set-cookie']![0]!.split(';')[0]!;
  const back = await idp.authorize(new URL(begun.headers.location!), subject);
  return request(h.app)
    .get(`/auth/oauth/idp/callback${back.search}`)
    .set(caller?.headers ?? (await anonymous()))
    .set('cookie', flowCookie);
}

const sessionCookieOf = (res: request.Response) =>
  ((res.headers['set-cookie'] as unknown as string[] | undefined) ?? []).find((c) =>
    c.startsWith(`${SESSION_COOKIE}=`),
  );

/** The account's owner, signed in, links the identity; answers the account's view of its links. */
async function linkWhileSignedIn(owner: SignedIn, subject: string) {
  const linked = await providerCallback(subject, owner);
  expect(linked.status).toBe(302);
  expect(linked.headers.location).toBe('http://localhost:8080/?provider_linked=idp');
  expect(sessionCookieOf(linked)).toBeUndefined();
  return linksOf(owner);
}

async function linksOf(owner: SignedIn): Promise<{ id: string; provider: string; name: string }[]> {
  const account = await request(h.app).get('/v1/account').set(owner.headers);
  expect(account.status).toBe(200);
  return account.body.data.provider_links;
}

async function resetPassword(email: string, body: Record<string, unknown>, nth: number) {
  const forgot = await request(h.app)
    .post('/auth/password/forgot')
    .set(await anonymous())
    .send({ email });
  expect(forgot.status).toBe(202);
  const token = linkIn(await h.mailTo(email, nth)).searchParams.get('token');
  return request(h.app)
    .post('/auth/password/reset')
    .set(await anonymous())
    .send({ token, password: NEW_PASSWORD, ...body });
}

describe('provider links', () => {
  it("signs nobody in to a confirmed account whose email a provider vouches for, and links nothing without the owner's mail", async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    idp.people.set('intruder-sub', { email, email_verified: true });
    for (let i = 0; i < 2; i++) {
      const res = await providerCallback('intruder-sub');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('http://localhost:8080/?provider_link=mailed');
      expect(sessionCookieOf(res)).toBeUndefined();
    }
    const owner = await signIn(h, email);
    expect(await linksOf(owner)).toEqual([]);
    // One consent mail however often it is tried (the confirmation mail was the first).
    await h.mailTo(email, 2);
    const mails = await h.deps.db
      .selectFrom('mail_outbox')
      .select('subject')
      .where('recipient', '=', email)
      .execute();
    expect(mails.map((m) => m.subject)).toEqual([
      'Confirm your Meridian account',
      'Link Identity provider to your Meridian account?',
    ]);
  });

  it("links a confirmed account only from its owner's mail, and keeps its password", async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    idp.people.set('frank-sub', { email, email_verified: true });
    expect((await providerCallback('frank-sub')).headers.location).toBe(
      'http://localhost:8080/?provider_link=mailed',
    );
    const consent = await h.mailTo(email, 2);
    expect(consent.raw).toContain('Subject: Link Identity provider to your Meridian account?');
    const link = linkIn(consent);
    expect(link.pathname).toBe('/auth/oauth/link/confirm');
    expect(await linksOf(owner)).toEqual([]);
    expect((await pressConfirmButton(h, link)).status).toBe(200);
    expect(await linksOf(owner)).toHaveLength(1);
    expect((await h.mailTo(email, 3)).raw).toContain('Subject: Identity provider can now sign in to your');

    const signedIn = await providerCallback('frank-sub');
    expect(signedIn.headers.location).toBe('http://localhost:8080/');
    expect(sessionCookieOf(signedIn)).toBeDefined();
    expect((await signIn(h, email)).account_id).toBe(owner.account_id);
    expect((await pressConfirmButton(h, link)).status).toBe(400);
  });

  it('links to the signed-in account at once, mails its owner, lists the link and unlinks it', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    idp.people.set('work-sub', { email: freshEmail(), email_verified: true });
    const links = await linkWhileSignedIn(owner, 'work-sub');
    expect(links).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        provider: 'idp',
        name: 'Identity provider',
        issuer: idp.issuer,
        linked_at: expect.any(String),
      },
    ]);
    expect((await h.mailTo(email, 2)).raw).toContain('Subject: Identity provider can now sign in to your');
    // Bound by the subject: the identity signs in to this account whatever email it shares.
    const signedIn = await providerCallback('work-sub');
    expect(signedIn.headers.location).toBe('http://localhost:8080/');
    expect(sessionCookieOf(signedIn)).toBeDefined();
    expect((signedIn.headers['set-cookie'] as unknown as string[]).join('\n')).toMatch(
      /meridian_device=[\w-]{43}; Max-Age=\d+; Path=\/auth;.*HttpOnly; Secure; SameSite=Lax/,
    );

    const stranger = await signIn(
      h,
      await (async () => {
        const other = freshEmail();
        await signUpConfirmed(h, other);
        return other;
      })(),
    );
    const id = links[0]!.id;
    expect((await request(h.app).delete(`/v1/account/links/${id}`).set(stranger.headers)).status).toBe(404);
    expect((await request(h.app).delete('/v1/account/links/not-an-id').set(owner.headers)).status).toBe(400);
    const unlinked = await request(h.app).delete(`/v1/account/links/${id}`).set(owner.headers);
    expect(unlinked.status).toBe(200);
    expect(unlinked.body.data).toEqual({ id, unlinked: true });
    expect(await linksOf(owner)).toEqual([]);
    expect((await request(h.app).delete(`/v1/account/links/${id}`).set(owner.headers)).status).toBe(404);
    // Unlinked, the identity is a stranger again: its own new account, not the owner's.
    const after = await providerCallback('work-sub');
    expect(after.headers.location).toBe('http://localhost:8080/');
    const row = await h.deps.db
      .selectFrom('oidc_links')
      .select('account_id')
      .where('subject', '=', 'work-sub')
      .executeTakeFirst();
    expect(row?.account_id).not.toBe(owner.account_id);
  });

  it('refuses to move an identity linked to another account to the signed-in one', async () => {
    const [a, b] = [freshEmail(), freshEmail()];
    await signUpConfirmed(h, a);
    await signUpConfirmed(h, b);
    const first = await signIn(h, a);
    idp.people.set('shared-sub', { email: freshEmail(), email_verified: true });
    await linkWhileSignedIn(first, 'shared-sub');
    const second = await signIn(h, b);
    const res = await providerCallback('shared-sub', second);
    expect(res.status).toBe(409);
    expect(await linksOf(second)).toEqual([]);
    expect(await linksOf(first)).toHaveLength(1);
  });

  it('removes the links on a password reset unless the owner keeps them', async () => {
    const [keeps, drops] = [freshEmail(), freshEmail()];
    for (const [email, subject] of [
      [keeps, 'kept-sub'],
      [drops, 'dropped-sub'],
    ] as const) {
      await signUpConfirmed(h, email);
      idp.people.set(subject, { email: freshEmail(), email_verified: true });
      expect(await linkWhileSignedIn(await signIn(h, email), subject)).toHaveLength(1);
    }
    // Mails so far: confirmation, link notice; the reset is the third.
    expect((await resetPassword(keeps, { keep_provider_links: true }, 3)).status).toBe(200);
    expect((await resetPassword(drops, {}, 3)).status).toBe(200);
    expect(await linksOf(await signIn(h, keeps, NEW_PASSWORD))).toHaveLength(1);
    const owner = await signIn(h, drops, NEW_PASSWORD);
    expect(await linksOf(owner)).toEqual([]);
    // The identity no longer reaches the account: it gets a new one of its own.
    expect((await providerCallback('dropped-sub')).status).toBe(302);
    const row = await h.deps.db
      .selectFrom('oidc_links')
      .select('account_id')
      .where('subject', '=', 'dropped-sub')
      .executeTakeFirst();
    expect(row?.account_id).not.toBe(owner.account_id);
  });

  it('offers keeping the links on the reset page, unchecked', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    await request(h.app)
      .post('/auth/password/forgot')
      .set(await anonymous())
      .send({ email });
    const link = linkIn(await h.mailTo(email, 2));
    const page = await request(h.app)
      .get(`${link.pathname}${link.search}`)
      .set(await anonymous());
    expect(page.text).toContain('<input type="checkbox" name="keep_provider_links">');
  });
});
