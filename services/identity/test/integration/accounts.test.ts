import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { RPC, SESSION_COOKIE } from '@meridian/contracts';
import { waitFor } from '@meridian/bus/testing';
import { callerHeaders } from '@meridian/http-kit/testing';
import { insertMail } from '../../src/db/repositories/mail-outbox.js';
import { hashToken } from '../../src/domain/secrets.js';
import {
  freshEmail,
  linkIn,
  startHarness,
  STRONG_PASSWORD,
  type Harness,
  type ReceivedMail,
} from './harness.js';
import {
  anonymous,
  pressConfirmButton,
  signIn,
  signUpConfirmed,
  submitResetForm,
  submitResetFormOf,
} from './flows.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_accounts', { LOGIN_IP_DELAY_AFTER: '4', LOGIN_IP_LOCK_AFTER: '6' });
});

afterAll(async () => {
  await h?.close();
});

const post = async (path: string, body: unknown, ip = '198.51.100.1') =>
  request(h.app)
    .post(path)
    .set(await anonymous())
    .set('x-forwarded-for', ip)
    .send(body as object);

const sessionCheck = (token: string) => h.bus.request(RPC.identitySessionVerify, { token });

/** Stands in for the minute passing after the last mail to an address (signup, resend). */
async function freeMinuteSlot(email: string): Promise<void> {
  await h.deps.db
    .updateTable('login_throttle')
    .set({ blocked_until: null })
    .where('scope', '=', `resend:${email}`)
    .execute();
}

describe('signup and email confirmation', () => {
  it('creates an unconfirmed account, mails a link, and the link confirms once', async () => {
    const email = freshEmail();
    const res = await post('/auth/signup', { email, password: STRONG_PASSWORD });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      data: { status: 'accepted' },
      meta: expect.any(Object),
      provenance: expect.any(Object),
    });

    const refused = await post('/auth/login', { email, password: STRONG_PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_category: 'email_unconfirmed', status: 403 });

    const link = linkIn(await h.mailTo(email));
    expect(link.pathname).toBe('/auth/verify-email');
    const token = link.searchParams.get('token')!;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const confirmed = await post('/auth/verify-email', { token });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toEqual({ email_confirmed: true });
    const again = await post('/auth/verify-email', { token });
    expect(again.status).toBe(400);
    expect(again.body.error_category).toBe('invalid_token');

    const login = await post('/auth/login', { email, password: STRONG_PASSWORD });
    expect(login.status).toBe(200);
  });

  it('mails what the confirmation page asks: the password it wants and the button to press', async () => {
    const email = freshEmail();
    await post('/auth/signup', { email, password: STRONG_PASSWORD });
    const mail = await h.mailTo(email);
    const link = linkIn(mail);
    const page = await request(h.app)
      .get(`${link.pathname}${link.search}`)
      .set(await anonymous());
    const label = page.text.match(/<label>([^<]+?)\s*<input type="password"/)![1]!;
    const button = page.text.match(/<button type="submit">([^<]+)<\/button>/)![1]!;
    const oneLine = mail.text.replace(/\s+/g, ' ');
    expect(oneLine).toContain(`"${label}"`);
    expect(oneLine).toContain(`"${button}"`);
    expect(oneLine).not.toContain('press the button;');
  });

  it('confirms nothing when the mailed link is only followed (GET); its page posts the token', async () => {
    const email = freshEmail();
    await post('/auth/signup', { email, password: STRONG_PASSWORD });
    const link = linkIn(await h.mailTo(email));
    for (let i = 0; i < 2; i++) {
      const page = await request(h.app)
        .get(`${link.pathname}${link.search}`)
        .set(await anonymous());
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('<form method="post" action="/auth/verify-email">');
      expect(page.text).not.toMatch(/<script/i);
    }
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(403);
    const account = await h.deps.db
      .selectFrom('accounts')
      .select('email_confirmed_at')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(account.email_confirmed_at).toBeNull();

    const confirmed = await pressConfirmButton(h, link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers['content-type']).toMatch(/^text\/html/);
    expect(confirmed.text).toContain('Email address confirmed');
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(200);
    const again = await pressConfirmButton(h, link);
    expect(again.status).toBe(400);
    expect(again.text).toContain('unknown, used or expired');
  });

  it('answers a signup for an existing email exactly like a new one and mails the owner instead, once a minute', async () => {
    const taken = freshEmail();
    await signUpConfirmed(h, taken);
    // A minute after the account's own signup (the slot moved back by hand).
    await freeMinuteSlot(taken);
    const fresh = freshEmail();
    const t1 = Date.now();
    const a = await post('/auth/signup', { email: taken, password: 'another-long-passphrase-88' });
    const t2 = Date.now();
    const b = await post('/auth/signup', { email: fresh, password: 'another-long-passphrase-88' });
    const t3 = Date.now();
    expect(a.status).toBe(b.status);
    expect(a.body.data).toEqual(b.body.data);
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
    // Same timing class: both hash the password and neither waits for SMTP.
    expect(Math.abs(t2 - t1 - (t3 - t2))).toBeLessThan(Math.max(t2 - t1, t3 - t2));
    // Two more within the minute: the same answer, and no more mail for the owner.
    for (let i = 0; i < 2; i++) {
      const again = await post('/auth/signup', { email: taken, password: 'another-long-passphrase-88' });
      expect(again.status).toBe(202);
      expect(again.body.data).toEqual(b.body.data);
    }
    const notice = await h.mailTo(taken, 2);
    expect(notice.text).toContain('already has one');
    expect(notice.text).not.toMatch(/token=/);
    expect((await h.mailTo(fresh)).text).toContain('/auth/verify-email?token=');
    // Mail is queued in the signup's own transaction, so the outbox already holds all it will.
    const queued = await h.deps.db
      .selectFrom('mail_outbox')
      .select('subject')
      .where('recipient', '=', taken)
      .orderBy('seq')
      .execute();
    expect(queued.map((m) => m.subject)).toEqual([
      'Confirm your Meridian account',
      'Someone tried to sign up with your email',
    ]);
  });

  it('refuses weak, short and overlong passwords naming the field', async () => {
    for (const password of ['short-pw', 'password1234', 'x'.repeat(257)]) {
      const res = await post('/auth/signup', { email: freshEmail(), password });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('body.password');
    }
    const bad = await post('/auth/signup', { email: 'not-an-email', password: STRONG_PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('body.email');
  });

  it('limits resend to one a minute per address, known or not', async () => {
    const email = freshEmail();
    await post('/auth/signup', { email, password: STRONG_PASSWORD });
    await h.mailTo(email);
    const known = await post('/auth/verify-email/resend', { email });
    expect(known.status).toBe(429);
    expect(known.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expect(known.headers['retry-after']).toBeDefined();
    const ghost = freshEmail();
    const unknown = await post('/auth/verify-email/resend', { email: ghost });
    const unknownAgain = await post('/auth/verify-email/resend', { email: ghost });
    expect(unknown.status).toBe(202);
    expect(unknownAgain.status).toBe(429);
    expect(unknownAgain.body.detail).toBe(known.body.detail);
    // A minute later (the slot moved back by hand) the known address gets a new link.
    await freeMinuteSlot(email);
    expect((await post('/auth/verify-email/resend', { email })).status).toBe(202);
    expect((await h.mailTo(email, 2)).text).toContain('/auth/verify-email?token=');
  });
});

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
      data: { account_id, session_id, plan: 'free', totp_active: false, sessions_epoch: 0 },
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
    expect(done.body.data).toEqual({ password_reset: true, sessions_revoked: 1 });
    // For the gateway that carries it: the account and its count of sessions all ended at once.
    expect(done.headers['x-sessions-epoch']).toMatch(/^[0-9a-f-]{36} 1$/);
  });
});

describe('link lifetimes', () => {
  const tokenOf = (mail: ReceivedMail) => linkIn(mail).searchParams.get('token')!;
  const lifetimeOf = async (token: string) => {
    const row = await h.deps.db
      .selectFrom('email_tokens')
      .select(['created_at', 'expires_at'])
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirstOrThrow();
    return row.expires_at.getTime() - row.created_at.getTime();
  };
  /** Stands in for the lifetime running out: the expiry moved a second into the past. */
  const expire = async (token: string) =>
    h.deps.db
      .updateTable('email_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hashToken(token))
      .execute();

  it('a confirmation link lives 24 hours and a reset link 30 minutes; after that, 400 invalid_token', async () => {
    const email = freshEmail();
    await post('/auth/signup', { email, password: STRONG_PASSWORD });
    const confirmation = tokenOf(await h.mailTo(email));
    // Set by the service's clock, stamped by the database's: seconds apart at most.
    expect(Math.abs((await lifetimeOf(confirmation)) - 24 * 3600_000)).toBeLessThan(5000);
    await expire(confirmation);
    const confirm = await post('/auth/verify-email', { token: confirmation });
    expect(confirm.status).toBe(400);
    expect(confirm.body.error_category).toBe('invalid_token');
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(403);

    await post('/auth/password/forgot', { email });
    const reset = tokenOf(await h.mailTo(email, 2));
    expect(Math.abs((await lifetimeOf(reset)) - 30 * 60_000)).toBeLessThan(5000);
    await expire(reset);
    const done = await post('/auth/password/reset', {
      token: reset,
      password: 'saffron-lighthouse-cobble-93',
    });
    expect(done.status).toBe(400);
    expect(done.body.error_category).toBe('invalid_token');
    // Nothing changed: the old password still answers, the address is still unconfirmed.
    expect((await post('/auth/login', { email, password: STRONG_PASSWORD })).status).toBe(403);
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

describe('mail relay', () => {
  it('clears the body of a mail it gives up on, so no live link stays behind', async () => {
    const to = `bounce.${freshEmail()}`;
    await insertMail(h.deps.db, {
      to,
      subject: 'Link',
      text: 'https://x.example/auth/verify-email?token=live',
    });
    // Nine failed attempts already behind it: the next one is the last.
    await h.deps.db.updateTable('mail_outbox').set({ attempts: 9 }).where('recipient', '=', to).execute();
    h.deps.mail.kick();
    const row = () =>
      h.deps.db
        .selectFrom('mail_outbox')
        .select(['attempts', 'body', 'sent_at'])
        .where('recipient', '=', to)
        .executeTakeFirstOrThrow();
    await waitFor(async () => (await row()).attempts === 10, { what: 'the last attempt' });
    expect(await row()).toEqual({ attempts: 10, body: null, sent_at: null });
  });
});

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
