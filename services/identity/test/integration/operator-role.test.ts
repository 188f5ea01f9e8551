import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { generate } from 'otplib';
import request from 'supertest';
import { RPC, type SessionVerifyReply } from '@meridian/contracts';
import { main } from '../../scripts/admin.js';
import { freshEmail, startHarness, type Harness } from './harness.js';
import { signIn, signUpConfirmed, type SignedIn } from './flows.js';

/** The operator role: granted and revoked by `identity:admin`, carried by the session's verification. */
describe('operator role', () => {
  let h: Harness;
  let email: string;
  let me: SignedIn;

  beforeAll(async () => {
    h = await startHarness('identity_operator');
    email = freshEmail();
    await signUpConfirmed(h, email);
    me = await signIn(h, email);
  });
  afterAll(async () => h?.close());

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, {
      env: { DATABASE_URL: h.deps.config.DATABASE_URL },
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    return { code, stdout: out.join(''), stderr: err.join('') };
  };
  const verified = async () => {
    const reply = await h.bus.request<SessionVerifyReply>(RPC.identitySessionVerify, { token: me.token });
    if (!reply.ok) throw new Error(reply.problem.detail);
    return reply.data;
  };

  it('carries no role for an account that was never granted one', async () => {
    const data = await verified();
    expect(data.role).toBeUndefined();
    expect(data.totp_active).toBe(false);
  });

  it('grants the role by command, logged with who and why; the session then carries it, and TOTP once active', async () => {
    const granted = await admin('grant-operator', email, '--by', 'lead', '--reason', 'joins the review desk');
    expect(granted.code).toBe(0);
    expect(granted.stdout).toMatch(/granted: operator role of account .* \(TOTP is not active/);
    expect((await admin('grant-operator', email, '--by', 'lead', '--reason', 'again')).stdout).toMatch(
      /already granted/,
    );
    expect(await verified()).toMatchObject({ role: 'operator', totp_active: false });

    const secret: string = (await request(h.app).post('/v1/account/2fa/enrol').set(me.headers)).body.data
      .secret;
    const activated = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(me.headers)
      .send({ code: await generate({ secret }) });
    expect(activated.status).toBe(200);
    expect(await verified()).toMatchObject({ role: 'operator', totp_active: true });

    const log = await admin('log');
    expect(log.stdout).toContain(
      `command:lead operator.grant account:${me.account_id} "joins the review desk"`,
    );
    expect(log.stdout.match(/operator\.grant/g)).toHaveLength(1);
  });

  it('revokes the role by command, and refuses an unknown email', async () => {
    expect((await admin('revoke-operator', email, '--by', 'lead', '--reason', 'left')).code).toBe(0);
    expect((await verified()).role).toBeUndefined();
    const unknown = await admin('grant-operator', freshEmail(), '--by', 'lead', '--reason', 'x');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no account has the email/);
  });

  it('keeps the operator log append-only: the database refuses UPDATE and DELETE', async () => {
    await expect(sql`update identity.operator_actions set reason = 'x'`.execute(h.deps.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from identity.operator_actions`.execute(h.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });
});
