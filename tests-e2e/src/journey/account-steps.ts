import { expect } from '@jest/globals';
import { rememberSecret } from '@meridian/observability/testing';
import { linkIn } from '@meridian/test-peers';
import { mailTo, pressConfirmButton } from '../accounts.js';
import { totpCode } from '../totp.js';
import { PASSWORD, problemOf, type Journey } from './journey.js';

/** The journey's first steps: an account of one's own, confirmed, with TOTP and an API key. */

/** Signs up; not yet confirmed, the password opens no session. */
export async function signUp(j: Journey): Promise<void> {
  const signup = await j.post('/auth/signup', { email: j.email, password: PASSWORD }, {});
  expect(signup.status).toBe(202);
  expect(await signup.json()).toMatchObject({ data: { status: 'accepted' } });
  // Not yet confirmed: no sign-in.
  await problemOf(
    await j.post('/auth/login', { email: j.email, password: PASSWORD }, {}),
    403,
    'email_unconfirmed',
  );
}

/** Opens the mailed link (a page that changes nothing) and presses its button. */
export async function confirmByMailedLink(j: Journey): Promise<void> {
  const link = linkIn(await mailTo(j.smtp, j.email));
  expect(link.pathname).toBe('/auth/verify-email');
  // Opening the link (as a mail scanner would) shows a page and changes nothing.
  const page = await j.get(`${link.pathname}${link.search}`, {});
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  await page.arrayBuffer();
  await problemOf(
    await j.post('/auth/login', { email: j.email, password: PASSWORD }, {}),
    403,
    'email_unconfirmed',
  );
  // Its button posts the form, as a browser does.
  const confirmed = await pressConfirmButton(j.system, link);
  expect(confirmed.status).toBe(200);
  expect(await confirmed.text()).toContain('Email address confirmed');
}

/** Signs in, turns TOTP on, signs out, and signs in again with the password and a code. */
export async function signInWithTotp(j: Journey): Promise<void> {
  const login = await j.post('/auth/login', { email: j.email, password: PASSWORD }, {});
  expect(login.status).toBe(200);
  const first = (await login.json()) as {
    data: { two_factor_required: boolean; token: string; account_id: string };
  };
  expect(first.data.two_factor_required).toBe(false);
  j.session = rememberSecret(first.data.token);
  j.accountId = first.data.account_id;
  expect(login.headers.getSetCookie().join()).toContain(`meridian_session=${j.session}`);
  const account = await j.get('/v1/account');
  expect(await account.json()).toMatchObject({
    data: {
      account_id: j.accountId,
      email: j.email,
      email_confirmed: true,
      plan: 'free',
      two_factor: 'off',
      keys: [],
    },
  });

  // Turning TOTP on asks for the password: a session alone does not lock the owner out.
  const unconfirmed = await j.post('/v1/account/2fa/enrol', {});
  expect(unconfirmed.status).toBe(403);
  await unconfirmed.arrayBuffer();
  const enrol = await j.post('/v1/account/2fa/enrol', { password: PASSWORD });
  expect(enrol.status).toBe(200);
  const enrolled = (await enrol.json()) as { data: { state: string; secret: string; otpauth_uri: string } };
  expect(enrolled.data).toMatchObject({
    state: 'pending',
    otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//),
  });
  j.totpSecret = rememberSecret(enrolled.data.secret);
  const activate = await j.post('/v1/account/2fa/activate', { code: totpCode(j.totpSecret) });
  expect(activate.status).toBe(200);
  const activated = (await activate.json()) as { data: { state: string; recovery_codes: string[] } };
  expect(activated.data.state).toBe('active');
  expect(activated.data.recovery_codes).toHaveLength(10);
  activated.data.recovery_codes.forEach((c) => rememberSecret(c));
  expect(await (await j.get('/v1/account/2fa')).json()).toMatchObject({
    data: { state: 'active', enabled: true, recovery_codes_left: 10 },
  });

  // Sign out; the password alone now opens a challenge, not a session.
  expect((await j.post('/auth/logout', {})).status).toBe(200);
  expect((await j.get('/v1/account')).status).toBe(401);
  const again = await j.post('/auth/login', { email: j.email, password: PASSWORD }, {});
  expect(again.status).toBe(200);
  const challenged = (await again.json()) as { data: Record<string, unknown> };
  expect(challenged.data).toMatchObject({ two_factor_required: true, challenge: expect.any(String) });
  expect(challenged.data).not.toHaveProperty('token');
  const challenge = rememberSecret(challenged.data.challenge as string);
  // The activation's code is spent: the app's next one answers the challenge.
  const verified = await j.post(
    '/auth/2fa/verify',
    { challenge, code: totpCode(j.totpSecret, Date.now() + 30_000) },
    {},
  );
  expect(verified.status).toBe(200);
  const signedIn = (await verified.json()) as { data: { two_factor_required: boolean; token: string } };
  expect(signedIn.data.two_factor_required).toBe(false);
  j.session = rememberSecret(signedIn.data.token);
  expect(await (await j.get('/v1/agent/whoami')).json()).toMatchObject({
    data: { account_id: j.accountId, auth: 'session', plan: 'free' },
  });
}

/** Creates an API key, shown once, that identifies the account. */
export async function createApiKey(j: Journey): Promise<void> {
  const created = await j.post('/v1/keys', {});
  expect(created.status).toBe(201);
  const body = (await created.json()) as {
    data: { id: string; key: string; prefix: string; shown_once: boolean };
  };
  j.key = rememberSecret(body.data.key);
  expect(body.data).toMatchObject({ shown_once: true, key: expect.stringMatching(/^mk_live_/) });
  expect(j.key.startsWith(body.data.prefix)).toBe(true);
  const account = (await (await j.get('/v1/account')).json()) as { data: { keys: { id: string }[] } };
  expect(account.data.keys.map((k) => k.id)).toEqual([body.data.id]);
  // The list never shows the secret again.
  expect(JSON.stringify(account)).not.toContain(j.key);
  expect(await (await j.withKey('/v1/agent/whoami')).json()).toMatchObject({
    data: { account_id: j.accountId, auth: 'api_key', key_id: body.data.id, plan: 'free' },
  });
}
