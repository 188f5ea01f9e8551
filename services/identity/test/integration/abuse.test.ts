// Abuse of accounts and their limits: pre-hijacking an address before its owner confirms it, sign-up
// floods, key churn, and sign-in lockouts that hold attackers back without locking the owner out.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { generate } from 'otplib';
import { EVENTS, RPC } from '@meridian/contracts';
import { insertLink } from '../../src/db/repositories/oidc.js';
import { freshEmail, linkIn, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, asSession, pressConfirmButton, submitResetForm } from './flows.js';
import {
  abuseCalls,
  ATTACKER_PASSWORD,
  deviceCookieOf,
  freshAddress,
  VICTIM_PASSWORD,
} from './support/abuse-calls.js';

let h: Harness;
const { post, signUp, logIn, accountOf } = abuseCalls(() => h);

const SIGNUP_LIMIT = 5;
const KEY_LIMIT = 3;
// Above the churn limit, as ultra's 20 keys are above the default 10 creations an hour.
const KEY_CAP = 5;
const ACCOUNT_LIMIT = 12;

beforeAll(async () => {
  h = await startHarness('identity_abuse', {
    SIGNUP_ADDRESS_LIMIT: String(SIGNUP_LIMIT),
    KEY_CREATION_LIMIT: String(KEY_LIMIT),
    KEY_CAPS: `free=${KEY_CAP}`,
    // The account's backoff locks at once here, so how many attempts pass is exact.
    LOGIN_ACCOUNT_DELAY_AFTER: String(ACCOUNT_LIMIT),
    LOGIN_ACCOUNT_LOCK_AFTER: String(ACCOUNT_LIMIT),
    LOGIN_DELAY_AFTER: '5',
    LOGIN_LOCK_AFTER: '5',
  });
});

afterAll(async () => {
  await h?.close();
});

describe('account pre-hijacking', () => {
  it("a second sign-up of an unconfirmed address replaces the first one's password and voids its link", async () => {
    const email = freshEmail();
    await signUp(email, ATTACKER_PASSWORD);
    const attackersLink = linkIn(await h.mailTo(email, 1));
    await signUp(email, VICTIM_PASSWORD);
    const victimsLink = linkIn(await h.mailTo(email, 2));
    expect(victimsLink.searchParams.get('token')).not.toBe(attackersLink.searchParams.get('token'));

    expect((await pressConfirmButton(h, attackersLink)).status).toBe(400);
    expect((await pressConfirmButton(h, victimsLink)).status).toBe(200);
    expect((await logIn(email, ATTACKER_PASSWORD)).status).toBe(401);
    expect((await logIn(email, VICTIM_PASSWORD)).status).toBe(200);
  });

  it('the confirmation page sets the password of whoever reads the mail; a refused one leaves the link usable', async () => {
    const email = freshEmail();
    await signUp(email, ATTACKER_PASSWORD);
    const link = linkIn(await h.mailTo(email));
    const weak = await pressConfirmButton(h, link, 'password1234');
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('<form method="post" action="/auth/verify-email">');
    expect(weak.text).toContain('role="alert"');
    const confirmed = await pressConfirmButton(h, link, VICTIM_PASSWORD);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Email address confirmed');
    expect((await logIn(email, ATTACKER_PASSWORD)).status).toBe(401);
    expect((await logIn(email, VICTIM_PASSWORD)).status).toBe(200);
    expect((await accountOf(email)).password_proven_at).toEqual(expect.any(Date));
  });

  it('a reset through the mail takes back everything from an account whose password only a sign-up chose', async () => {
    const email = freshEmail();
    // The attacker signs up with the victim's address; the victim only follows the mailed link.
    await signUp(email, ATTACKER_PASSWORD);
    const confirm = await request(h.app)
      .post('/auth/verify-email')
      .set(await anonymous())
      .send({ token: linkIn(await h.mailTo(email)).searchParams.get('token') });
    expect(confirm.status).toBe(200);

    // The attacker signs in with the password they chose, makes a key and turns TOTP on.
    const login = await logIn(email, ATTACKER_PASSWORD);
    expect(login.status).toBe(200);
    const attacker = await asSession(login.body.data);
    const key = await post('/v1/keys', {}, freshAddress(), attacker.headers);
    expect(key.status).toBe(201);
    const enrol = await post(
      '/v1/account/2fa/enrol',
      { password: ATTACKER_PASSWORD },
      freshAddress(),
      attacker.headers,
    );
    const secret = enrol.body.data.secret as string;
    const activate = await post(
      '/v1/account/2fa/activate',
      { code: await generate({ secret }) },
      freshAddress(),
      attacker.headers,
    );
    expect(activate.status).toBe(200);
    const { id } = await accountOf(email);
    await insertLink(h.deps.db, 'https://idp.attacker.example', 'attacker-sub', id);

    // The victim resets the password through the mail.
    expect((await post('/auth/password/forgot', { email }, freshAddress())).status).toBe(202);
    const reset = linkIn(await h.mailTo(email, 2));
    expect((await submitResetForm(h, reset, VICTIM_PASSWORD)).status).toBe(200);

    expect((await h.bus.request(RPC.identityKeyVerify, { key: key.body.data.key })).ok).toBe(false);
    expect((await h.bus.request(RPC.identitySessionVerify, { token: attacker.token })).ok).toBe(false);
    expect((await accountOf(email)).totp_state).toBe('off');
    const links = await h.deps.db
      .selectFrom('oidc_links')
      .select('subject')
      .where('account_id', '=', id)
      .execute();
    expect(links).toEqual([]);
    const revoked = await h.deps.db
      .selectFrom('outbox')
      .select('payload')
      .where('subject', 'like', `%${EVENTS.identityKeyRevoked}`)
      .execute();
    expect(JSON.stringify(revoked)).toContain(key.body.data.id);
    expect((await logIn(email, ATTACKER_PASSWORD)).status).toBe(401);
    const victim = await logIn(email, VICTIM_PASSWORD);
    expect(victim.status).toBe(200);
    expect(victim.body.data.two_factor_required).toBe(false);
  });

  it('a reset keeps the keys and second factor of an account whose owner set the password on the confirmation page', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const owner = await asSession((await logIn(email, VICTIM_PASSWORD)).body.data);
    const key = await post('/v1/keys', {}, freshAddress(), owner.headers);
    expect(key.status).toBe(201);
    await post('/auth/password/forgot', { email }, freshAddress());
    expect(
      (await submitResetForm(h, linkIn(await h.mailTo(email, 2)), 'quartz-meadow-ferry-204')).status,
    ).toBe(200);
    expect((await h.bus.request(RPC.identityKeyVerify, { key: key.body.data.key })).ok).toBe(true);
  });
});

describe('sign-up flood', () => {
  it('limits sign-ups per client address (429 with retry_after) and mails only those accepted', async () => {
    const ip = freshAddress();
    const emails = Array.from({ length: 3 * SIGNUP_LIMIT }, () => freshEmail());
    const answers = await Promise.all(
      emails.map(async (email) => post('/auth/signup', { email, password: STRONG_PASSWORD }, ip)),
    );
    const accepted = answers.filter((a) => a.status === 202).length;
    expect(accepted).toBe(SIGNUP_LIMIT);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(2 * SIGNUP_LIMIT);
    expect(refused[0]!.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expect(refused[0]!.body.retry_after).toBeGreaterThan(3000);
    expect(refused[0]!.headers['retry-after']).toBe(String(refused[0]!.body.retry_after));
    const queued = await h.deps.db
      .selectFrom('mail_outbox')
      .select('recipient')
      .where('recipient', 'in', emails)
      .execute();
    expect(queued).toHaveLength(SIGNUP_LIMIT);
    // Another client address is not held back.
    expect(
      (await post('/auth/signup', { email: freshEmail(), password: STRONG_PASSWORD }, freshAddress())).status,
    ).toBe(202);
  });

  it('keeps sign-ins fast while many sign-ups from many addresses wait their turn to hash', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const signIn = async () => expect((await logIn(email, VICTIM_PASSWORD)).status).toBe(200);
    await signIn();
    const floodStarted = Date.now();
    let floodEnded = 0;
    const flood = Promise.all(
      Array.from({ length: 16 }, () =>
        post('/auth/signup', { email: freshEmail(), password: STRONG_PASSWORD }, freshAddress()),
      ),
    ).then((answers) => {
      floodEnded = Date.now();
      return answers;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 3; i++) await signIn();
    const signInsDone = Date.now();
    const answers = await flood;
    expect(answers.every((a) => a.status === 202)).toBe(true);
    // In turn, the 16 hashes run one after another while the sign-ins' compares take the other
    // threads, so three sign-ins end early in the flood. Unbounded, the hashes would hold every
    // bcrypt thread and each compare would queue behind them, ending with the flood. Measured as a
    // share of the flood, not in ms, so a slower (or busier) machine slows both alike.
    expect(signInsDone - floodStarted).toBeLessThan((floodEnded - floodStarted) / 2);
  }, 90_000);
});

describe('key churn', () => {
  async function newOwner() {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    return asSession((await logIn(email, VICTIM_PASSWORD)).body.data);
  }

  it("lets an account fill its plan's cap whatever the churn limit, then says why it refuses", async () => {
    const owner = await newOwner();
    const statuses: number[] = [];
    for (let i = 0; i < KEY_CAP; i++)
      statuses.push((await post('/v1/keys', {}, freshAddress(), owner.headers)).status);
    expect(statuses).toEqual(Array(KEY_CAP).fill(201));
    const over = await post('/v1/keys', {}, freshAddress(), owner.headers);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error_category: 'too_many_keys', retryable: false });
  });

  it('limits key creations per account, and revoking gives none back', async () => {
    const owner = await newOwner();
    for (let i = 0; i < KEY_LIMIT; i++) {
      const made = await post('/v1/keys', {}, freshAddress(), owner.headers);
      expect(made.status).toBe(201);
      expect(
        (await post(`/v1/keys/${made.body.data.id}/revoke`, {}, freshAddress(), owner.headers)).status,
      ).toBe(200);
    }
    const refused = await post('/v1/keys', {}, freshAddress(), owner.headers);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expect(refused.body.retry_after).toBeGreaterThan(3000);
  });
});

describe('sign-in lockout', () => {
  it('locks one client address out of an account, not the owner signing in from elsewhere', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const attacker = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await logIn(email, `wrong-guess-number-${i}`, attacker)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    // Even the right password waits at the attacker's address; the owner's own is not held back.
    expect((await logIn(email, VICTIM_PASSWORD, attacker)).status).toBe(429);
    expect((await logIn(email, VICTIM_PASSWORD)).status).toBe(200);
  });

  it('slows the account from every address after many failures and mails its owner a link that lets that browser in once', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: ACCOUNT_LIMIT + 8 }, (_, i) => logIn(email, `wrong-guess-number-${i}`)),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(ACCOUNT_LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(8);
    const owner = freshAddress();
    expect((await logIn(email, VICTIM_PASSWORD, owner)).status).toBe(429);

    const mail = await h.mailTo(email, 2);
    expect(mail.raw).toContain('Subject: Sign-ins to your Meridian account are slowed down');
    const link = linkIn(mail);
    expect(link.pathname).toBe('/auth/unlock');
    // Only one such mail however many attempts wait.
    expect((await logIn(email, VICTIM_PASSWORD, owner)).status).toBe(429);
    const page = await request(h.app)
      .get(`${link.pathname}${link.search}`)
      .set(await anonymous());
    expect(page.status).toBe(200);
    expect((await logIn(email, VICTIM_PASSWORD, owner)).status).toBe(429);
    const unlock = (token: string | null) => post('/auth/unlock', { token }, owner);
    const unlocked = await unlock(link.searchParams.get('token'));
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data).toEqual({ unlocked: true });
    const browser = deviceCookieOf(unlocked);
    // The browser that used the link signs in; the lock still holds for everyone else.
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress(), browser)).status).toBe(200);
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress())).status).toBe(429);
    const again = await unlock(link.searchParams.get('token'));
    expect(again.status).toBe(400);
    expect(again.body.error_category).toBe('invalid_token');
    expect(h.smtp.mails.filter((m) => m.to === email)).toHaveLength(2);
  });

  it('lets the owner in from a known browser or address while guesses from many addresses hold the lock for others', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const home = freshAddress();
    const earlier = await logIn(email, VICTIM_PASSWORD, home);
    expect(earlier.status).toBe(200);
    const browser = deviceCookieOf(earlier);
    // 32 wrong passwords from 16 addresses: the email-wide lock engages.
    for (let a = 0; a < 16; a++) {
      const ip = freshAddress();
      for (let i = 0; i < 2; i++) await logIn(email, `wrong-guess-${a}-${i}`, ip);
    }
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress())).status).toBe(429);
    // The owner's browser from a new address, and the owner's earlier address without it.
    const fromBrowser = await logIn(email, VICTIM_PASSWORD, freshAddress(), browser);
    expect(fromBrowser.status).toBe(200);
    expect(deviceCookieOf(fromBrowser)).toBe(browser);
    expect((await logIn(email, VICTIM_PASSWORD, home)).status).toBe(200);
    // Neither lifted the lock for others, and a made-up device token is no key.
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress())).status).toBe(429);
    const madeUp = `meridian_device=${'A'.repeat(43)}`;
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress(), madeUp)).status).toBe(429);
    // A known browser's guesses meet its own counter: five wrong passwords and it waits too.
    for (let i = 0; i < 5; i++) await logIn(email, `browser-guess-${i}`, freshAddress(), browser);
    expect((await logIn(email, VICTIM_PASSWORD, freshAddress(), browser)).status).toBe(429);
  }, 60_000);

  it('forgets the browsers and addresses an account signed in from when its password is reset', async () => {
    const email = freshEmail();
    await signUp(email, VICTIM_PASSWORD);
    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)), VICTIM_PASSWORD)).status).toBe(200);
    const thief = freshAddress();
    const stolen = await logIn(email, VICTIM_PASSWORD, thief);
    const thiefBrowser = deviceCookieOf(stolen);
    await post('/auth/password/forgot', { email }, freshAddress());
    const newPassword = 'quartz-meadow-ferry-204';
    expect((await submitResetForm(h, linkIn(await h.mailTo(email, 2)), newPassword)).status).toBe(200);
    await Promise.all(Array.from({ length: ACCOUNT_LIMIT }, (_, i) => logIn(email, `wrong-guess-${i}`)));
    expect((await logIn(email, newPassword, thief, thiefBrowser)).status).toBe(429);
  });
});
