// Signing up: the confirmation mail and its page, a signup for a taken address answered alike,
// password rules, resend limits, how long mailed links live, and mail the relay gives up on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
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
import { anonymous, pressConfirmButton, signUpConfirmed } from './flows.js';
import { postFrom } from './support/clients.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_accounts_signup', { LOGIN_IP_DELAY_AFTER: '4', LOGIN_IP_LOCK_AFTER: '6' });
});

afterAll(async () => {
  await h?.close();
});

const post = async (path: string, body: unknown, ip = '198.51.100.1') => postFrom(h, path, body, ip);

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
