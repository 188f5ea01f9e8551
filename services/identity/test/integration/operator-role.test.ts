import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { generate } from 'otplib';
import request from 'supertest';
import { RPC, type SessionVerifyReply } from '@meridian/contracts';
import { main } from '../../scripts/admin.js';
import { freshEmail, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
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

  it('grants the first operator with --bootstrap only while none exists, then only under a checked --operator', async () => {
    const named = await admin('grant-operator', email, '--operator', email, '--reason', 'x');
    expect([named.code, named.stderr]).toEqual([
      2,
      `identity:admin: ${email} does not hold the operator role\n`,
    ]);
    const granted = await admin('grant-operator', email, '--bootstrap', '--reason', 'joins the review desk');
    expect(granted.code).toBe(0);
    expect(granted.stdout).toMatch(/granted: operator role of account .* \(TOTP is not active/);
    const second = await admin('grant-operator', freshEmail(), '--bootstrap', '--reason', 'x');
    expect([second.code, second.stderr]).toEqual([
      2,
      'identity:admin: an operator exists already: name one with --operator <email>\n',
    ]);
    expect((await admin('grant-operator', email, '--operator', email, '--reason', 'again')).stdout).toMatch(
      /already granted/,
    );
    expect(await verified()).toMatchObject({ role: 'operator', totp_active: false });

    const secret: string = (
      await request(h.app).post('/v1/account/2fa/enrol').set(me.headers).send({ password: STRONG_PASSWORD })
    ).body.data.secret;
    const activated = await request(h.app)
      .post('/v1/account/2fa/activate')
      .set(me.headers)
      .send({ code: await generate({ secret }) });
    expect(activated.status).toBe(200);
    expect(await verified()).toMatchObject({ role: 'operator', totp_active: true });

    const log = await admin('log');
    expect(log.stdout).toContain(
      `command:bootstrap operator.grant account:${me.account_id} "joins the review desk"`,
    );
    expect(log.stdout.match(/operator\.grant/g)).toHaveLength(1);
  });

  it('resolves an operator by email over rpc.identity.operator.resolve.v1: 403 without the role, 404 for none', async () => {
    const resolve = (address: string) =>
      h.bus.request<unknown>(RPC.identityOperatorResolve, { email: address });
    expect(await resolve(email.toUpperCase())).toEqual({
      ok: true,
      data: { account_id: me.account_id, email, nickname: null },
    });
    const other = freshEmail();
    await signUpConfirmed(h, other);
    expect(await resolve(other)).toMatchObject({
      ok: false,
      problem: { status: 403, error_category: 'operator_required' },
    });
    expect(await resolve(freshEmail())).toMatchObject({ ok: false, problem: { status: 404 } });
  });

  it('revokes the role by command, and refuses an unknown email', async () => {
    const unknown = await admin('grant-operator', freshEmail(), '--operator', email, '--reason', 'x');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no account has the email/);
    expect((await admin('revoke-operator', email, '--operator', email, '--reason', 'left')).code).toBe(0);
    expect((await verified()).role).toBeUndefined();
    const rows = await h.deps.db.selectFrom('operator_actions').selectAll().orderBy('id').execute();
    expect(rows.at(-1)).toMatchObject({
      action: 'operator.revoke',
      actor: `operator:${me.account_id}`,
      operator_account_id: me.account_id,
      operator_email: email,
    });
  });

  it('verifies the log with log --verify, and names a row edited with the trigger turned off', async () => {
    expect((await admin('log', '--verify')).stdout).toMatch(
      /^the operator log holds: 2 rows, head [0-9a-f]{64}\n$/,
    );
    const first = await h.deps.db
      .selectFrom('operator_actions')
      .select('id')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    await sql`alter table identity.operator_actions disable trigger operator_actions_append_only`.execute(
      h.deps.db,
    );
    await sql`update identity.operator_actions set reason = 'nothing to see' where id = ${first.id}`.execute(
      h.deps.db,
    );
    await sql`alter table identity.operator_actions enable trigger operator_actions_append_only`.execute(
      h.deps.db,
    );
    const broken = await admin('log', '--verify');
    expect([broken.code, broken.stderr]).toEqual([
      2,
      `identity:admin: the operator log is broken at row ${first.id}: its fields do not match its hash\n`,
    ]);
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
