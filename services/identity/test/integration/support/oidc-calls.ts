import { expect } from '@jest/globals';
import request from 'supertest';
import { RPC, SESSION_COOKIE } from '@meridian/contracts';
import { OIDC_CLIENT, startOidcPeer, type OidcPeer } from '@meridian/test-peers';
import { startHarness, STRONG_PASSWORD, type Harness } from '../harness.js';
import { anonymous } from '../flows.js';

const REDIRECT = 'http://localhost:8080/auth/oauth/idp/callback';

export const UNVERIFIED =
  /the provider did not verify the email address; sign up with your email and a password/;

interface OidcBed {
  h: Harness;
  idp: OidcPeer;
}

/** An OpenID provider on loopback, and identity configured to sign in through it. */
export async function startOidcBed(prefix: string): Promise<OidcBed> {
  const idp = await startOidcPeer(REDIRECT);
  const h = await startHarness(prefix, {
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: OIDC_CLIENT.id,
    OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
    OIDC_REDIRECT_URI: REDIRECT,
  }).catch(async (error: unknown) => {
    await idp.close();
    throw error;
  });
  return { h, idp };
}

/** A refused sign-in: 400 `oidc_refused` with the reason, and no session cookie. */
export function expectRefused(res: request.Response, why: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.error_category).toBe('oidc_refused');
  expect(res.body.detail).toMatch(why);
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  expect(cookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
}

interface Started {
  authorizeUrl: URL;
  flowCookie: string;
}

/** The steps of a provider sign-in; `bed` answers the provider and service the test file started. */
export function providerSignIn(bed: () => OidcBed) {
  async function begin(): Promise<Started> {
    const res = await request(bed().h.app)
      .get('/auth/oauth/idp')
      .set(await anonymous());
    expect(res.status).toBe(302);
    const flowCookie = res.headers['set-cookie']![0]!.split(';')[0]!;
    expect(res.headers['set-cookie']![0]).toMatch(/HttpOnly/);
    return { authorizeUrl: new URL(res.headers.location!), flowCookie };
  }

  async function callback(back: URL, flowCookie: string, caller?: Record<string, string>) {
    return request(bed().h.app)
      .get(`${new URL(REDIRECT).pathname}${back.search}`)
      .set(caller ?? (await anonymous()))
      .set('cookie', flowCookie);
  }

  /** A whole sign-in at the provider; answers the callback's answer. */
  async function providerCallback(subject: string) {
    const started = await begin();
    const back = await bed().idp.authorize(started.authorizeUrl, subject);
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
    const verified = await bed().h.bus.request<{ account_id: string }>(RPC.identitySessionVerify, { token });
    if (!verified.ok) throw new Error('the session does not verify');
    return verified.data.account_id;
  }

  return { begin, callback, providerCallback, signInThroughProvider };
}

/** What identity stored about addresses and identities, and an account made by a password signup. */
export function storedAccounts(harness: () => Harness) {
  const db = () => harness().deps.db;
  const linkOf = async (subject: string) =>
    db().selectFrom('oidc_links').select('account_id').where('subject', '=', subject).executeTakeFirst();
  const accountOf = async (email: string) =>
    db().selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
  /** Mails queued for an address; the outbox row is written in the transaction of the change. */
  const mailsQueuedTo = async (email: string) =>
    db().selectFrom('mail_outbox').select('subject').where('recipient', '=', email).execute();
  const sessionsOf = async (accountId: string) =>
    db().selectFrom('sessions').select('id').where('account_id', '=', accountId).execute();
  /** An account made by a password signup and not confirmed yet; answers its id. */
  const signUpUnconfirmed = async (email: string, password = STRONG_PASSWORD): Promise<string> => {
    const signup = await request(harness().app)
      .post('/auth/signup')
      .set(await anonymous())
      .send({ email, password });
    expect(signup.status).toBe(202);
    return (await accountOf(email))!.id;
  };
  return { linkOf, accountOf, mailsQueuedTo, sessionsOf, signUpUnconfirmed };
}
