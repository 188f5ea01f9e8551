// Turning TOTP on asks for the password, checked by the sign-in's bcrypt and counters: a session
// held for a minute by someone else must not lock the owner out with a second factor of theirs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { freshEmail, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { signIn, signUpConfirmed, type SignedIn } from './flows.js';

describe('TOTP enrolment asks for the password', () => {
  let h: Harness;
  let me: SignedIn;

  beforeAll(async () => {
    h = await startHarness('identity_totp_enrol', { LOGIN_DELAY_AFTER: '10', LOGIN_LOCK_AFTER: '3' });
    const email = freshEmail();
    await signUpConfirmed(h, email);
    me = await signIn(h, email);
  });
  afterAll(async () => h?.close());

  const enrol = async (body: object) =>
    request(h.app)
      .post('/v1/account/2fa/enrol')
      .set(me.headers)
      .set('x-forwarded-for', '203.0.113.9')
      .send(body);
  const state = async () => (await request(h.app).get('/v1/account/2fa').set(me.headers)).body.data.state;

  it('refuses a session without the password, and with a wrong one; TOTP stays off', async () => {
    const none = await enrol({});
    expect([none.status, none.body.error_category]).toEqual([403, 'invalid_password']);
    expect(none.body.detail).toMatch(/password/);
    const wrong = await enrol({ password: 'not-the-password-at-all' });
    expect([wrong.status, wrong.body.error_category]).toEqual([403, 'invalid_password']);
    expect(wrong.body.data).toBeUndefined();
    expect(await state()).toBe('off');
  });

  it('enrols with the right password', async () => {
    const res = await enrol({ password: STRONG_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ state: 'pending', secret: expect.any(String) });
  });

  it("counts wrong passwords on the sign-in's counters: locked, even the right one waits", async () => {
    // With the wrong one of the first test, three: LOGIN_LOCK_AFTER.
    for (let i = 0; i < 2; i++) expect((await enrol({ password: `guess-number-${i}-xyz` })).status).toBe(403);
    const locked = await enrol({ password: STRONG_PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.body.retry_after).toBeGreaterThan(0);
  });
});
