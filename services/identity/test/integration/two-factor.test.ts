// The TOTP second factor: enrolment sealed at rest, activation with recovery codes, sign-in through
// a challenge, disabling, and the limits on guessing codes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { generate } from 'otplib';
import { RPC } from '@meridian/contracts';
import { freshEmail, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, signIn, signUpConfirmed, type SignedIn } from './flows.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_2fa');
});

afterAll(async () => {
  await h?.close();
});

const codeAt = (secret: string, offsetSteps = 0) =>
  generate({ secret, epoch: Date.now() / 1000 + offsetSteps * 30 });

async function login(email: string) {
  return request(h.app)
    .post('/auth/login')
    .set(await anonymous())
    .send({ email, password: STRONG_PASSWORD });
}

async function verifyChallenge(challenge: string, factor: Record<string, string>) {
  return request(h.app)
    .post('/auth/2fa/verify')
    .set(await anonymous())
    .send({ challenge, ...factor });
}

describe('TOTP second factor', () => {
  let me: SignedIn;
  let email: string;
  let secret: string;
  let recovery: string[];
  /** The code accepted at activation, replayed word for word at sign-in. */
  let activationCode: string;

  beforeAll(async () => {
    email = freshEmail();
    await signUpConfirmed(h, email);
    me = await signIn(h, email);
  });

  it('enrols with a secret, an otpauth URI and a QR code, sealed at rest', async () => {
    const res = await request(h.app)
      .post('/v1/account/2fa/enrol')
      .set(me.headers)
      .send({ password: STRONG_PASSWORD });
    expect(res.status).toBe(200);
    secret = res.body.data.secret;
    expect(res.body.data).toMatchObject({ state: 'pending', algorithm: 'sha1', digits: 6, period: 30 });
    expect(res.body.data.otpauth_uri).toContain(`secret=${secret}`);
    expect(res.body.data.qr_svg).toMatch(/^<svg/);
    expect(res.body.data.qr_data_url).toMatch(/^data:image\/png;base64,/);
    const row = await h.deps.db
      .selectFrom('accounts')
      .select('totp_secret_sealed')
      .where('id', '=', me.account_id)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret_sealed).not.toContain(secret);
  });

  it('activates with a first code and answers ten recovery codes once', async () => {
    const wrong = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(me.headers)
      .send({ code: '000000' });
    expect(wrong.status).toBe(403);
    activationCode = await codeAt(secret);
    const res = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(me.headers)
      .send({ code: activationCode });
    expect(res.status).toBe(200);
    recovery = res.body.data.recovery_codes;
    expect(recovery).toHaveLength(10);
    const status = await request(h.app).get('/v1/account/2fa').set(me.headers);
    expect(status.body.data).toEqual({ state: 'active', enabled: true, recovery_codes_left: 10 });
    expect(JSON.stringify(status.body)).not.toContain(recovery[0]);
  });

  it('answers login with a challenge and refuses a code already accepted', async () => {
    const res = await login(email);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ two_factor_required: true, challenge: expect.any(String) });
    expect(res.headers['set-cookie']).toBeUndefined();
    const { challenge } = res.body.data;
    const replay = await verifyChallenge(challenge, { code: activationCode });
    expect(replay.status).toBe(403);
    expect(replay.body.error_category).toBe('invalid_code');
    const next = await verifyChallenge(challenge, { code: await codeAt(secret, 1) });
    expect(next.status).toBe(200);
    expect(next.headers['set-cookie']![0]).toContain('meridian_session=');
    expect((await h.bus.request(RPC.identitySessionVerify, { token: next.body.data.token })).ok).toBe(true);
    expect((await verifyChallenge(challenge, { code: await codeAt(secret, 1) })).body.error_category).toBe(
      'challenge_expired',
    );
  });

  it('accepts a recovery code once', async () => {
    const first = (await login(email)).body.data.challenge;
    expect((await verifyChallenge(first, { recovery_code: recovery[0]!.toUpperCase() })).status).toBe(200);
    const second = (await login(email)).body.data.challenge;
    expect((await verifyChallenge(second, { recovery_code: recovery[0]! })).status).toBe(403);
  });

  it('answers 404 for an unknown POST /v1/account/2fa/{id}', async () => {
    const res = await request(h.app).post('/v1/account/2fa/whatever').set(me.headers).send({});
    expect(res.status).toBe(404);
  });

  it('disables only with a current code or a recovery code', async () => {
    const none = await request(h.app).post('/v1/account/2fa/disable').set(me.headers).send({});
    expect(none.status).toBe(400);
    const wrong = await request(h.app)
      .post('/v1/account/2fa/disable')
      .set(me.headers)
      .send({ code: '123456' });
    expect(wrong.status).toBe(403);
    const res = await request(h.app)
      .post('/v1/account/2fa/disable')
      .set(me.headers)
      .send({ recovery_code: recovery[1] });
    expect(res.status).toBe(200);
    expect((await login(email)).body.data.two_factor_required).toBe(false);
  });

  it('keeps TOTP secrets and recovery codes out of the logs', () => {
    for (const line of h.logLines) {
      expect(line).not.toContain(secret);
      for (const code of recovery) expect(line).not.toContain(code);
    }
  });
});

/** A code that is none of the codes accepted now (one step of drift either way). */
async function wrongCodeFor(secret: string): Promise<string> {
  const valid = new Set([await codeAt(secret, -1), await codeAt(secret), await codeAt(secret, 1)]);
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

/** A signed-in account with TOTP active. */
async function twoFactorAccount() {
  const email = freshEmail();
  await signUpConfirmed(h, email);
  const me = await signIn(h, email);
  const secret: string = (
    await request(h.app).post('/v1/account/2fa/enrol').set(me.headers).send({ password: STRONG_PASSWORD })
  ).body.data.secret;
  const activated = await request(h.app)
    .post('/v1/account/2fa/activate')
    .set(me.headers)
    .send({ code: await codeAt(secret) });
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}`);
  return { email, me, secret, wrong: await wrongCodeFor(secret) };
}

describe('second-factor guessing', () => {
  it('counts parallel wrong answers to one challenge: never more than five are checked', async () => {
    const { email, wrong } = await twoFactorAccount();
    const { challenge } = (await login(email)).body.data;
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => verifyChallenge(challenge, { code: wrong })),
    );
    const categories = answers.map((a) => a.body.error_category as string);
    expect(categories.filter((c) => c === 'invalid_code')).toHaveLength(5);
    expect(categories.filter((c) => c === 'challenge_expired')).toHaveLength(7);
    const row = await h.deps.db
      .selectFrom('login_challenges')
      .select('attempts')
      .where('account_id', '=', (await asAccount(email)).id)
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(5);
  });

  it('locks the second factor of an account for 15 minutes after 10 wrong answers across challenges', async () => {
    const { email, me, secret, wrong } = await twoFactorAccount();
    for (let round = 0; round < 2; round++) {
      const { challenge } = (await login(email)).body.data;
      for (let i = 0; i < 5; i++)
        expect((await verifyChallenge(challenge, { code: wrong })).status).toBe(403);
    }
    const { challenge } = (await login(email)).body.data;
    const locked = await verifyChallenge(challenge, { code: await codeAt(secret, 1) });
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expect(locked.body.retry_after).toBeGreaterThan(890);
    const disable = await request(h.app)
      .post('/v1/account/2fa/disable')
      .set(me.headers)
      .send({ code: await codeAt(secret, 1) });
    expect(disable.status).toBe(429);
  });

  it('counts wrong codes to disable and to recovery-code regeneration, and locks them too', async () => {
    const { me, secret, wrong } = await twoFactorAccount();
    for (let i = 0; i < 5; i++) {
      const disable = await request(h.app)
        .post('/v1/account/2fa/disable')
        .set(me.headers)
        .send({ code: wrong });
      expect(disable.status).toBe(403);
      const regenerate = await request(h.app)
        .post('/v1/account/2fa/recovery-codes')
        .set(me.headers)
        .send({ code: wrong });
      expect(regenerate.status).toBe(403);
    }
    const disable = await request(h.app)
      .post('/v1/account/2fa/disable')
      .set(me.headers)
      .send({ code: await codeAt(secret, 1) });
    expect(disable.status).toBe(429);
    expect(disable.body.error_category).toBe('rate_limit');
    expect((await request(h.app).get('/v1/account/2fa').set(me.headers)).body.data.state).toBe('active');
  });

  it("keeps the email's failed-password count until the second factor passes", async () => {
    const { email, secret } = await twoFactorAccount();
    for (let i = 0; i < 3; i++) {
      const res = await request(h.app)
        .post('/auth/login')
        .set(await anonymous())
        .send({ email, password: 'not-the-password-at-all' });
      expect(res.status).toBe(401);
    }
    const failures = async () =>
      (
        await h.deps.db
          .selectFrom('login_throttle')
          .select('failures')
          .where('scope', '=', `login:email:${email}`)
          .executeTakeFirst()
      )?.failures;
    expect(await failures()).toBe(3);
    const { challenge } = (await login(email)).body.data;
    expect(await failures()).toBe(3);
    expect((await verifyChallenge(challenge, { code: await codeAt(secret, 1) })).status).toBe(200);
    expect(await failures()).toBeUndefined();
  });
});

async function asAccount(email: string) {
  return h.deps.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
}
