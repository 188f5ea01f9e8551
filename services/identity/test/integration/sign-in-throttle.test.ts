import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { freshEmail, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, signUpConfirmed } from './flows.js';

let h: Harness;

// The delay and the lock start at the same count here, so a burst meets a 15-minute lock rather
// than a one-second delay that a slow machine could outlast: how many attempts pass is exact.
const EMAIL_LIMIT = 5;
const ADDRESS_LIMIT = 8;

beforeAll(async () => {
  h = await startHarness('identity_sign_in_throttle', {
    LOGIN_ACCOUNT_DELAY_AFTER: String(EMAIL_LIMIT),
    LOGIN_ACCOUNT_LOCK_AFTER: String(EMAIL_LIMIT),
    LOGIN_DELAY_AFTER: String(EMAIL_LIMIT),
    LOGIN_LOCK_AFTER: String(EMAIL_LIMIT),
    LOGIN_IP_DELAY_AFTER: String(ADDRESS_LIMIT),
    LOGIN_IP_LOCK_AFTER: String(ADDRESS_LIMIT),
  });
});

afterAll(async () => {
  await h?.close();
});

const login = async (email: string, password: string, ip: string) =>
  request(h.app)
    .post('/auth/login')
    .set(await anonymous())
    .set('x-forwarded-for', ip)
    .send({ email, password });

const failuresOf = async (scope: string) =>
  (
    await h.deps.db
      .selectFrom('login_throttle')
      .select('failures')
      .where('scope', '=', scope)
      .executeTakeFirst()
  )?.failures;

/** The statuses of many attempts sent at once, by status. */
async function burst(attempts: (() => Promise<request.Response>)[]): Promise<Record<number, number>> {
  const answers = await Promise.all(attempts.map(async (attempt) => attempt()));
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

describe('parallel sign-in attempts', () => {
  it('let no more guesses at one email reach the password check than its limit', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    // Each from its own address, so only the email's counter can stop them.
    const counts = await burst(
      Array.from({ length: 40 }, (_, i) => () => login(email, `wrong-guess-number-${i}`, `10.30.${i}.1`)),
    );
    expect(counts).toEqual({ 401: EMAIL_LIMIT, 429: 40 - EMAIL_LIMIT });
    expect(await failuresOf(`login:email:${email}`)).toBe(EMAIL_LIMIT);
    expect((await login(email, STRONG_PASSWORD, '10.31.0.1')).status).toBe(429);
  });

  it('let no more guesses from one address reach the password check than its limit', async () => {
    const ip = '10.32.0.1';
    const counts = await burst(
      Array.from({ length: 40 }, () => () => login(freshEmail(), 'wrong-guess-for-anyone', ip)),
    );
    expect(counts).toEqual({ 401: ADDRESS_LIMIT, 429: 40 - ADDRESS_LIMIT });
    expect(await failuresOf(`login:ip:${ip}`)).toBe(ADDRESS_LIMIT);
  });

  it("give a right password's provisional count back: the email is cleared, the address keeps its real failures", async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const ip = '10.33.0.1';
    for (const target of [email, email, freshEmail()])
      expect((await login(target, 'not-the-password-here', ip)).status).toBe(401);
    expect(await failuresOf(`login:email:${email}`)).toBe(2);
    expect((await login(email, STRONG_PASSWORD, ip)).status).toBe(200);
    expect(await failuresOf(`login:email:${email}`)).toBeUndefined();
    expect(await failuresOf(`login:ip:${ip}`)).toBe(3);
  });

  it('gives the count back to an unconfirmed account, which is told to confirm', async () => {
    const email = freshEmail();
    const signup = await request(h.app)
      .post('/auth/signup')
      .set(await anonymous())
      .send({ email, password: STRONG_PASSWORD });
    expect(signup.status).toBe(202);
    const ip = '10.34.0.1';
    expect((await login(email, 'not-the-password-here', ip)).status).toBe(401);
    const refused = await login(email, STRONG_PASSWORD, ip);
    expect(refused.status).toBe(403);
    expect(refused.body.error_category).toBe('email_unconfirmed');
    expect(await failuresOf(`login:email:${email}`)).toBe(1);
    expect(await failuresOf(`login:ip:${ip}`)).toBe(1);
  });
});
