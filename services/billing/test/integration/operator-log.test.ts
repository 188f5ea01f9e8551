import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { newEvent } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, RPC } from '@meridian/contracts';
import { operatorHeaders } from '@meridian/http-kit/testing';
import { main } from '../../scripts/admin.js';
import { readBalance } from '../../src/db/repositories/ledger.js';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { startBilling, type Billing } from './harness.js';

const OPERATOR_EMAIL = 'ops@meridian.test';

/** Who did what to money: checked operators, known accounts, a log row in the change's transaction. */
describe("billing's operators and the accounts they act on", () => {
  let billing: Billing;
  const operator = randomUUID();

  beforeAll(async () => {
    billing = await startBilling('billing_operator_log');
    billing.identity.operators.set(OPERATOR_EMAIL, operator);
    billing.identity.accounts.add(operator);
  });
  afterAll(async () => billing?.close());

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, {
      env: { DATABASE_URL: billing.databaseUrl, NATS_URL: TEST_NATS_URL, BUS_NAMESPACE: billing.namespace },
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    return { code, out: out.join(''), err: err.join('') };
  };
  const grantLine = (account: string, operatorEmail = OPERATOR_EMAIL) =>
    admin(
      'grant',
      '--operator',
      operatorEmail,
      '--account',
      account,
      '--amount',
      '5000000',
      '--note',
      'goodwill',
    );
  const console = async (path: string, body: object) =>
    request(billing.app)
      .post(path)
      .set(await operatorHeaders(operator))
      .send(body);
  const logOf = (target: string) =>
    billing.deps.db
      .selectFrom('operator_actions')
      .select(['actor', 'operator_email', 'action', 'target'])
      .where('target', '=', target)
      .execute();
  const entriesOf = (account: string) =>
    billing.deps.db
      .selectFrom('ledger_entries')
      .select(['actor', 'reason'])
      .where('account_id', '=', account)
      .execute();

  it('refuses a command whose operator is not one, in one line with exit code 2, writing nothing', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    const refused = await grantLine(account, 'mallory@meridian.test');
    expect(refused.code).toBe(2);
    expect(refused.err.trim().split('\n')).toEqual([
      'billing:admin: mallory@meridian.test is not an operator; nothing was written.',
    ]);
    expect(await entriesOf(account)).toEqual([]);
    expect(await logOf(`account:${account}`)).toEqual([]);
  });

  it('logs a command with the checked operator, in the transaction of its posting', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    expect(await grantLine(account)).toMatchObject({ code: 0 });
    expect(await entriesOf(account)).toEqual([{ actor: `operator:${operator}`, reason: 'admin_grant' }]);
    expect(await logOf(`account:${account}`)).toEqual([
      {
        actor: `operator:${operator}`,
        operator_email: OPERATOR_EMAIL,
        action: 'credit.grant',
        target: `account:${account}`,
      },
    ]);
    // The log is a hash chain the command walks.
    expect(await admin('log-verify')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^the operator log holds: \d+ rows, head [0-9a-f]{64}\n$/),
    });
  });

  it('refuses a command and every console write that names an account that does not exist', async () => {
    const phantom = randomUUID();
    const refused = await grantLine(phantom);
    expect(refused.code).toBe(2);
    expect(refused.err.trim().split('\n')).toEqual([
      `billing:admin: No account ${phantom} exists; nothing was written.`,
    ]);
    for (const [path, body] of [
      ['/v1/operator/billing/grant', { account_id: phantom, amount_atomic: 1, reason: 'goodwill' }],
      ['/v1/operator/billing/revoke', { account_id: phantom, amount_atomic: 1, reason: 'chargeback' }],
      ['/v1/operator/billing/refund', { account_id: phantom, order_id: 'run-phantom01', reason: 'sorry' }],
      ['/v1/operator/billing/deposits/sig-phantom/assign', { account_id: phantom, reason: 'memo typo' }],
    ] as const) {
      const res = await console(path, body);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error_category: 'unknown_account' });
    }
    expect(await readBalance(billing.deps.db, phantom)).toBe(0);
    expect(await entriesOf(phantom)).toEqual([]);
  });

  it('knows an account from identity.account.created.v1 alone, applied once however often it comes', async () => {
    const account = randomUUID();
    const event = newEvent('identity', EVENTS.identityAccountCreated, {
      account_id: account,
      plan: 'free',
      created_at: new Date().toISOString(),
    });
    await billing.client.publish(event);
    await billing.client.publish(event);
    await waitFor(
      async () =>
        (
          await billing.deps.db
            .selectFrom('accounts')
            .select('account_id')
            .where('account_id', '=', account)
            .execute()
        ).length === 1,
      { what: 'the account projected' },
    );
    // Identity's responder does not know it: the projection alone lets the grant through.
    const granted = await console('/v1/operator/billing/grant', {
      account_id: account,
      amount_atomic: 2_000_000,
      reason: 'welcome credit',
    });
    expect(granted.status).toBe(201);
  });

  it('writes a console refund and its log row together or not at all', async () => {
    const account = randomUUID();
    await billing.grant(account, 9_000_000);
    const spent = await billing.client.request(RPC.billingCreditSpend, {
      account_id: account,
      order_id: 'run-logtx0001',
      item: 'run:audit_base',
    });
    expect(spent).toMatchObject({ ok: true });
    // The log refuses the row: the refund must not stay behind without it.
    await sql`create function billing.refuse_refund_log() returns trigger language plpgsql as $$
      begin
        if new.action = 'credit.refund' then raise exception 'log unavailable'; end if;
        return new;
      end $$`.execute(billing.deps.db);
    await sql`create trigger refuse_refund_log before insert on billing.operator_actions
      for each row execute function billing.refuse_refund_log()`.execute(billing.deps.db);
    const body = { account_id: account, order_id: 'run-logtx0001', reason: 'the run failed' };
    try {
      expect((await console('/v1/operator/billing/refund', body)).status).toBe(500);
      expect(await readBalance(billing.deps.db, account)).toBe(0);
    } finally {
      await sql`drop trigger refuse_refund_log on billing.operator_actions`.execute(billing.deps.db);
    }
    expect((await console('/v1/operator/billing/refund', body)).status).toBe(201);
    expect(await readBalance(billing.deps.db, account)).toBe(9_000_000);
    expect(await logOf('order:run-logtx0001')).toEqual([
      {
        actor: `operator:${operator}`,
        operator_email: `${operator.slice(0, 8)}@example.test`,
        action: 'credit.refund',
        target: 'order:run-logtx0001',
      },
    ]);
  });
});
