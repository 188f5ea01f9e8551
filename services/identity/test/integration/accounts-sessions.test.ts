// Sessions (cookie and bearer token, logout), password reset through the mail or as JSON, the
// sign-in throttle per address and per email, and logs that never carry a secret.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { RPC, SESSION_COOKIE } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { freshEmail, linkIn, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, signIn, signUpConfirmed, submitResetForm, submitResetFormOf } from './flows.js';
import { postFrom } from './support/clients.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_accounts_sessions', {
    LOGIN_IP_DELAY_AFTER: '4',
    LOGIN_IP_LOCK_AFTER: '6',
  });
});

afterAll(async () => {
  await h?.close();
});

const post = async (path: string, body: unknown, ip = '198.51.100.1') => postFrom(h, path, body, ip);

const sessionCheck = (token: string) => h.bus.request(RPC.identitySessionVerify, { token });

describe('sessions', () => {
  it('signs in with a cookie and a bearer token the RPC verifies, and logout revokes it at once', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const res = await post('/auth/login', { email, password: STRONG_PASSWORD });
    expect(res.status).toBe(200);
    const { token, session_id, account_id } = res.body.data;
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toContain(`${SESSION_COOKIE}=${token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);

    expect(await sessionCheck(token)).toEqual({
      ok: true,
      data: {
        account_id,
        session_id,
        plan: 'free',
        totp_active: false,
        sessions_epoch: 0,
        second_factor_at: null,
      },
    });
    const out = await request(h.app)
      .post('/auth/logout')
      .set(await callerHeaders({ account_id, plan: 'free', auth: 'session', session_id }));
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']![0]).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    const after = await sessionCheck(token);
    expect(after).toMatchObject({ ok: false, problem: { status: 401, error_category: 'unauthorized' } });
  });

  it('logs out by the bearer token when the gateway vouched for no session', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const s = await signIn(h, email);
    const out = await request(h.app)
      .post('/auth/logout')
      .set(await anonymous())
      .set('authorization', `Bearer ${s.token}`);
    expect(out.status).toBe(200);
    expect((await sessionCheck(s.token)).ok).toBe(false);
    const twice = await request(h.app)
      .post('/auth/logout')
      .set(await anonymous())
      .set('authorization', `Bearer ${s.token}`);
    expect(twice.status).toBe(401);
  });

  it('treats a malformed session cookie as none (401, not 500)', async () => {
    const out = await request(h.app)
      .post('/auth/logout')
      .set(await anonymous())
      .set('cookie', `${SESSION_COOKIE}=%E0%A4%A`);
    expect(out.status).toBe(401);
    expect(out.body.error_category).toBe('unauthorized');
  });

  it('refuses unknown and malformed session tokens over the bus', async () => {
    expect(await sessionCheck('nope-not-a-session-token')).toMatchObject({
      ok: false,
      problem: { status: 401 },
    });
    expect(await h.bus.request(RPC.identitySessionVerify, { token: '' })).toMatchObject({ ok: false });
  });
});

describe('password reset', () => {
  it('answers forgot alike for known and unknown emails; the mailed link sets a new password and revokes every session', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const one = await signIn(h, email);
    const two = await signIn(h, email);
    const known = await post('/auth/password/forgot', { email });
    const unknown = await post('/auth/password/forgot', { email: freshEmail() });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body.data).toEqual(unknown.body.data);

    const link = linkIn(await h.mailTo(email, 2));
    expect(link.pathname).toBe('/auth/password/reset');
    const page = await request(h.app)
      .get(`${link.pathname}${link.search}`)
      .set(await anonymous());
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/<script/i);
    // Following the link changed nothing.
    expect((await sessionCheck(one.token)).ok).toBe(true);

    const weak = await submitResetForm(h, link, 'password1234');
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('too common');
    const newPassword = 'saffron-lighthouse-cobble-93';
    // The refusal answers the form again; the link still works.
    const done = await submitResetFormOf(h, weak.text, newPassword);
    expect(done.status).toBe(200);
    expect(done.headers['content-type']).toMatch(/^text\/html/);
    expect(done.text).toContain('Password changed');
    expect((await sessionCheck(one.token)).ok).toBe(false);
    expect((await sessionCheck(two.token)).ok).toBe(false);

    const again = await submitResetForm(h, link, 'another-fine-passphrase-12');
    expect(again.status).toBe(400);
    expect(again.text).toContain('unknown, used or expired');
    const json = await post('/auth/password/reset', {
      token: link.searchParams.get('token'),
      password: 'another-fine-passphrase-12',
    });
    expect(json.status).toBe(400);
    expect(json.body.error_category).toBe('invalid_token');
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(401);
    expect((await post('/auth/login', { email, password: newPassword })).status).toBe(200);
  });

  it('resets with JSON for a program, answering how many sessions ended', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    await signIn(h, email);
    await post('/auth/password/forgot', { email });
    const token = linkIn(await h.mailTo(email, 2)).searchParams.get('token')!;
    const weak = await post('/auth/password/reset', { token, password: 'password1234' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].path).toBe('body.password');
    const done = await post('/auth/password/reset', { token, password: 'saffron-lighthouse-cobble-93' });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({
      password_reset: true,
      sessions_revoked: 1,
      totp_removed: false,
      keys_revoked: 0,
    });
    // For the gateway that carries it: the account and its count of sessions all ended at once.
    expect(done.headers['x-sessions-epoch']).toMatch(/^[0-9a-f-]{36} 1$/);
  });
});

describe('throttling', () => {
  it('answers an unknown email and a wrong password alike, then delays and locks the address', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const ip = '192.0.2.77';
    const wrong = await post('/auth/login', { email, password: 'wrong-password-but-long' }, ip);
    const unknown = await post(
      '/auth/login',
      { email: freshEmail(), password: 'wrong-password-but-long' },
      ip,
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    for (let i = 0; i < 2; i++)
      await post('/auth/login', { email: freshEmail(), password: 'wrong-password-x1' }, ip);
    // The fourth failure from this address (LOGIN_IP_DELAY_AFTER=4) makes the next attempt wait 1 s.
    const scope = `login:ip:${ip}`;
    const row = await h.deps.db
      .selectFrom('login_throttle')
      .select(['failures', 'last_failure_at', 'blocked_until'])
      .where('scope', '=', scope)
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(4);
    expect(row.blocked_until!.getTime() - row.last_failure_at.getTime()).toBe(1000);
    // A loaded machine may spend that second on the fourth attempt's hash: the fourth failure is
    // moved to now, standing in for a client that comes back within the second.
    const at = new Date();
    await h.deps.db
      .updateTable('login_throttle')
      .set({ last_failure_at: at, blocked_until: new Date(at.getTime() + 1000) })
      .where('scope', '=', scope)
      .execute();
    const delayed = await post('/auth/login', { email, password: STRONG_PASSWORD }, ip);
    expect(delayed.status).toBe(429);
    expect(delayed.body).toMatchObject({ error_category: 'rate_limit', retryable: true, retry_after: 1 });
    // Another address is not affected.
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD }, '192.0.2.78')).status).toBe(200);
  });

  it('locks an email for 15 minutes after 30 consecutive failures from anywhere, whether it has an account or not', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const ghost = freshEmail();
    for (const target of [email, ghost]) {
      for (let i = 0; i < EMAIL_LOCK_AFTER; i++) {
        await waitOutDelay(target);
        // Each failure from its own address, so the per-address counter stays out of the way.
        await post('/auth/login', { email: target, password: 'wrong-password-again' }, `10.9.${i}.1`);
      }
    }
    const real = await post('/auth/login', { email, password: STRONG_PASSWORD }, '10.8.0.1');
    const fake = await post('/auth/login', { email: ghost, password: STRONG_PASSWORD }, '10.8.0.2');
    expect(real.status).toBe(429);
    expect(fake.status).toBe(429);
    // The 15-minute lock, minus the time the ghost's failures took; the longest delay is 512 s.
    expect(real.body.retry_after).toBeGreaterThan(600);
    expect(real.body).toEqual({ ...fake.body, retry_after: real.body.retry_after });
  }, 120_000);
});

/** The default LOGIN_ACCOUNT_LOCK_AFTER: failures at one email from anywhere before its lock. */
const EMAIL_LOCK_AFTER = 30;

/** Stands in for waiting out the exponential delay between failures (not the lock). */
async function waitOutDelay(email: string): Promise<void> {
  const scope = `login:email:${email}`;
  await h.deps.db
    .updateTable('login_throttle')
    .set({ blocked_until: null })
    .where('scope', '=', scope)
    .where('failures', '<', EMAIL_LOCK_AFTER)
    .execute();
}

describe('logs', () => {
  it('never carry a password, a token or a mailed link (SMTP is set)', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const s = await signIn(h, email);
    const secrets = [STRONG_PASSWORD, s.token];
    for (const mail of h.smtp.mails) {
      const token = mail.text.match(/token=([A-Za-z0-9_-]+)/)?.[1];
      if (token) secrets.push(token);
    }
    expect(h.logLines.length).toBeGreaterThan(0);
    for (const line of h.logLines) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
