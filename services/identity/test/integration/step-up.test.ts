// Step-up for operator routes: a session passes the second factor at sign-in (a TOTP code) or at
// POST /v1/account/step-up, identity vouches for when, and operatorAccountOf wants it recent.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { generate } from 'otplib';
import request from 'supertest';
import { RPC, type Caller, type SessionVerifyReply } from '@meridian/contracts';
import type { HttpProblem } from '@meridian/http-kit';
import { operatorAccountOf } from '@meridian/http-kit';
import { grantOperatorRole } from '../../src/db/repositories/operators.js';
import { freshEmail, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, asSession, signIn, signUpConfirmed, type SignedIn } from './flows.js';

const codeAt = (secret: string, offsetSteps = 0) =>
  generate({ secret, epoch: Date.now() / 1000 + offsetSteps * 30 });

describe('step-up for operator routes', () => {
  let h: Harness;
  let email: string;
  /** A password-only session, opened before TOTP was turned on. */
  let stale: SignedIn;
  let secret: string;

  beforeAll(async () => {
    h = await startHarness('identity_step_up', { TWO_FACTOR_LOCK_AFTER: '3' });
    email = freshEmail();
    await signUpConfirmed(h, email);
    stale = await signIn(h, email);
    const other = await signIn(h, email);
    secret = (
      await request(h.app)
        .post('/v1/account/2fa/enrol')
        .set(other.headers)
        .send({ password: STRONG_PASSWORD })
    ).body.data.secret as string;
    const activated = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(other.headers)
      .send({ code: await codeAt(secret, -1) });
    expect(activated.status).toBe(200);
    await grantOperatorRole(h.deps.db, stale.account_id, 'test', new Date());
  });
  afterAll(async () => h?.close());

  const verified = async (token: string) => {
    const reply = await h.bus.request<SessionVerifyReply>(RPC.identitySessionVerify, { token });
    if (!reply.ok) throw new Error(reply.problem.detail);
    return reply.data;
  };
  /** What an operator route answers the session, given the caller the gateway builds from identity's reply. */
  const operatorRoute = async (token: string): Promise<string> => {
    const v = await verified(token);
    const caller: Caller = {
      account_id: v.account_id,
      plan: v.plan,
      auth: 'session',
      key_id: null,
      session_id: v.session_id,
      ...(v.role ? { role: v.role } : {}),
      ...(v.totp_active !== undefined ? { totp_active: v.totp_active } : {}),
      ...(v.second_factor_at !== undefined ? { second_factor_at: v.second_factor_at } : {}),
    };
    try {
      return operatorAccountOf({ caller } as unknown as Request) === v.account_id ? 'allowed' : 'other';
    } catch (err) {
      return (err as HttpProblem).body.error_category;
    }
  };
  const stepUp = async (who: SignedIn, code: string) =>
    request(h.app).post('/v1/account/step-up').set(who.headers).send({ code });

  it('refuses an operator grant to a password-only session opened before TOTP was turned on', async () => {
    expect(await verified(stale.token)).toMatchObject({
      role: 'operator',
      totp_active: true,
      second_factor_at: null,
    });
    expect(await operatorRoute(stale.token)).toBe('step_up_required');
  });

  it('steps the session up with a current code, and the operator route then lets it in', async () => {
    const wrong = await stepUp(stale, '000000');
    expect([wrong.status, wrong.body.error_category]).toEqual([403, 'invalid_code']);
    const before = Date.now();
    const passed = await stepUp(stale, await codeAt(secret));
    expect(passed.status).toBe(200);
    const at = Date.parse(passed.body.data.second_factor_at as string);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect((await verified(stale.token)).second_factor_at).toBe(passed.body.data.second_factor_at);
    expect(await operatorRoute(stale.token)).toBe('allowed');
    // The code was used: the same one does not step up again.
    expect((await stepUp(stale, await codeAt(secret))).status).toBe(403);
  });

  it('stamps a sign-in answered with a current code', async () => {
    const login = await request(h.app)
      .post('/auth/login')
      .set(await anonymous())
      .send({ email, password: STRONG_PASSWORD });
    const answered = await request(h.app)
      .post('/auth/2fa/verify')
      .set(await anonymous())
      .send({ challenge: login.body.data.challenge, code: await codeAt(secret, 1) });
    expect(answered.status).toBe(200);
    const withCode = await asSession(answered.body.data);
    expect((await verified(withCode.token)).second_factor_at).toEqual(expect.any(String));
    expect(await operatorRoute(withCode.token)).toBe('allowed');
  });

  it('throttles step-up codes like the sign-in challenge: locked after TWO_FACTOR_LOCK_AFTER wrong ones', async () => {
    for (let i = 0; i < 3; i++) expect((await stepUp(stale, '000000')).status).toBe(403);
    const locked = await stepUp(stale, '000000');
    expect(locked.status).toBe(429);
    expect(locked.body.retry_after).toBeGreaterThan(0);
  });

  it('refuses a caller without a session: an API key does not step up', async () => {
    const res = await request(h.app)
      .post('/v1/account/step-up')
      .set(await anonymous())
      .send({ code: '123456' });
    expect(res.status).toBe(401);
  });
});
