import request from 'supertest';
import { callerHeaders } from '@meridian/http-kit/testing';
import { rememberSecret } from '@meridian/observability/testing';
import { linkIn, STRONG_PASSWORD, type Harness } from './harness.js';

export const anonymous = () => callerHeaders();

/** Signs up and follows the mailed link, as a person would. */
export async function signUpConfirmed(h: Harness, email: string, password = STRONG_PASSWORD): Promise<void> {
  rememberSecret(password);
  const before = h.smtp.mails.filter((m) => m.to === email).length;
  const res = await request(h.app)
    .post('/auth/signup')
    .set(await anonymous())
    .send({ email, password });
  if (res.status !== 202) throw new Error(`signup answered ${res.status}`);
  const link = linkIn(await h.mailTo(email, before + 1));
  const confirmed = await pressConfirmButton(h, link, password);
  if (confirmed.status !== 200) throw new Error(`confirmation answered ${confirmed.status}`);
}

/**
 * Opens the mailed link (a page that changes nothing) and submits its form, as a browser does:
 * with the password typed in, or (`password` omitted) the field left empty, as a program posting
 * only the token.
 */
export async function pressConfirmButton(h: Harness, link: URL, password?: string) {
  const page = await request(h.app)
    .get(`${link.pathname}${link.search}`)
    .set(await anonymous());
  if (page.status !== 200) throw new Error(`the link answered ${page.status}`);
  const form = page.text.match(/<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s);
  if (!form) throw new Error(`no form on the page:\n${page.text}`);
  return request(h.app)
    .post(form[1]!)
    .set(await anonymous())
    .type('form')
    .send({ token: form[2]!, ...(password === undefined ? {} : { password }) });
}

/**
 * Opens the mailed reset link (a page that changes nothing) and submits its form with a new
 * password, as a browser does.
 */
export async function submitResetForm(h: Harness, link: URL, password: string) {
  const page = await request(h.app)
    .get(`${link.pathname}${link.search}`)
    .set(await anonymous());
  if (page.status !== 200) throw new Error(`the link answered ${page.status}`);
  return submitResetFormOf(h, page.text, password);
}

/** Submits the reset form found in a page (the link's page, or the one a refused password answers). */
export async function submitResetFormOf(h: Harness, html: string, password: string) {
  rememberSecret(password);
  const form = html.match(
    /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)".*<input type="password" name="password"/s,
  );
  if (!form) throw new Error(`no reset form on the page:\n${html}`);
  return request(h.app)
    .post(form[1]!)
    .set(await anonymous())
    .type('form')
    .send({ token: form[2]!, password });
}

export interface SignedIn {
  account_id: string;
  session_id: string;
  token: string;
  headers: Record<string, string>;
}

/** Signs in with a password and answers what the gateway would forward for that session. */
export async function signIn(h: Harness, email: string, password = STRONG_PASSWORD, ip = '203.0.113.9') {
  const res = await request(h.app)
    .post('/auth/login')
    .set(await anonymous())
    .set('x-forwarded-for', ip)
    .send({ email, password });
  if (res.status !== 200 || res.body.data.two_factor_required)
    throw new Error(`login answered ${res.status}`);
  return asSession(res.body.data);
}

export async function asSession(
  data: { account_id?: string; session_id: string; token: string },
  accountId?: string,
) {
  const account_id = data.account_id ?? accountId!;
  const headers = await callerHeaders({
    account_id,
    plan: 'free',
    auth: 'session',
    session_id: data.session_id,
  });
  return {
    account_id,
    session_id: data.session_id,
    token: rememberSecret(data.token),
    headers,
  } satisfies SignedIn;
}
