import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { RPC } from '@meridian/contracts';
import { callerHeaders, operatorCaller } from '@meridian/http-kit/testing';
import { readBalance } from '../../src/db/repositories/ledger.js';
import { recordDeposit } from '../../src/flows/record-deposit.js';
import { startBilling, type Billing } from './harness.js';

/** The operator console's credit and deposit actions, through the ledger's own rules. */
describe('operator routes of billing', () => {
  let billing: Billing;
  const operator = randomUUID();

  beforeAll(async () => {
    billing = await startBilling('billing_operator');
  });
  afterAll(async () => billing?.close());

  const as = (totp = true, role: 'operator' | null = 'operator') =>
    callerHeaders(operatorCaller(operator, { role: role ?? undefined, totp_active: totp }));
  const send = async (path: string, body: object, headers: Record<string, string> = {}) =>
    request(billing.app)
      .post(path)
      .set({ ...(await as()), ...headers })
      .send(body);
  const balance = (account: string) => readBalance(billing.deps.db, account);
  const log = () =>
    billing.deps.db
      .selectFrom('operator_actions')
      .select(['actor', 'action', 'target', 'reason'])
      .orderBy('id')
      .execute();

  it('refuses a session without the role, and an operator without TOTP', async () => {
    for (const [headers, category] of [
      [await as(true, null), 'operator_role_required'],
      [await as(false), 'operator_totp_required'],
    ] as const) {
      const list = await request(billing.app).get('/v1/operator/billing/deposits').set(headers);
      expect(list.status).toBe(403);
      expect(list.body.error_category).toBe(category);
      const grant = await request(billing.app)
        .post('/v1/operator/billing/grant')
        .set(headers)
        .send({ account_id: randomUUID(), amount_atomic: 1, reason: 'goodwill' });
      expect(grant.status).toBe(403);
    }
    expect(await log()).toEqual([]);
  });

  it('grants and revokes credit with a reason, once per Idempotency-Key, never below zero', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    const body = { account_id: account, amount_atomic: 5_000_000, reason: 'goodwill for the outage' };
    const granted = await send('/v1/operator/billing/grant', body, { 'idempotency-key': `g-${account}` });
    expect(granted.status).toBe(201);
    expect(granted.body.data.entry).toMatchObject({ reason: 'admin_grant', actor: `operator:${operator}` });
    const again = await send('/v1/operator/billing/grant', body, { 'idempotency-key': `g-${account}` });
    expect(again.status).toBe(200);
    expect(await balance(account)).toBe(5_000_000);
    const tooMuch = await send('/v1/operator/billing/revoke', { ...body, amount_atomic: 6_000_000 });
    expect(tooMuch.status).toBe(402);
    expect((await send('/v1/operator/billing/revoke', { ...body, amount_atomic: 2_000_000 })).status).toBe(
      201,
    );
    expect(await balance(account)).toBe(3_000_000);
    expect((await send('/v1/operator/billing/grant', { account_id: account, amount_atomic: 1 })).status).toBe(
      400,
    );
    expect((await log()).filter((l) => l.target === `account:${account}`)).toEqual([
      {
        actor: `operator:${operator}`,
        action: 'credit.grant',
        target: `account:${account}`,
        reason: '5000000: goodwill for the outage',
      },
      {
        actor: `operator:${operator}`,
        action: 'credit.revoke',
        target: `account:${account}`,
        reason: '2000000: goodwill for the outage',
      },
    ]);
  });

  it('refunds an order through the refund rule: never more than it spent', async () => {
    const account = randomUUID();
    await billing.grant(account, 9_000_000);
    const order = `run-${randomUUID()}`;
    await billing.client.request(RPC.billingCreditSpend, {
      account_id: account,
      order_id: order,
      item: 'run:audit_base',
    });
    const spent = 9_000_000 - (await balance(account));
    const over = await send('/v1/operator/billing/refund', {
      account_id: account,
      order_id: order,
      amount_atomic: spent + 1,
      reason: 'the run was wrong',
    });
    expect(over.status).toBe(409);
    const refunded = await send('/v1/operator/billing/refund', {
      account_id: account,
      order_id: order,
      reason: 'the run was wrong',
    });
    expect(refunded.status).toBe(201);
    expect(await balance(account)).toBe(9_000_000);
    expect((await log()).find((l) => l.target === `order:${order}`)).toMatchObject({
      action: 'credit.refund',
    });
  });

  it('assigns an unmatched deposit to an account once, or marks one returned', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    const signature = `sig-lost-${account}`;
    await recordDeposit(billing.deps, 'watched', {
      tx_signature: signature,
      slot: 7,
      block_time: null,
      amount_atomic: 4_200_000,
      memo: 'typo in the memo',
    });
    await recordDeposit(billing.deps, 'watched', {
      tx_signature: `sig-stray-${account}`,
      slot: 8,
      block_time: null,
      amount_atomic: 1_000_000,
      memo: null,
    });
    const list = await request(billing.app)
      .get('/v1/operator/billing/deposits')
      .set(await as());
    expect(list.body.data.map((d: { tx_signature: string }) => d.tx_signature)).toEqual(
      expect.arrayContaining([signature, `sig-stray-${account}`]),
    );
    const path = `/v1/operator/billing/deposits/${signature}/assign`;
    const assigned = await send(path, { account_id: account, reason: 'the owner mailed us the transaction' });
    expect(assigned.status).toBe(200);
    expect(await balance(account)).toBe(4_200_000);
    expect((await send(path, { account_id: account, reason: 'twice' })).status).toBe(404);
    expect(await balance(account)).toBe(4_200_000);
    const returned = await send(`/v1/operator/billing/deposits/sig-stray-${account}/return`, {
      reason: 'sent back in tx 5xYz',
    });
    expect(returned.status).toBe(200);
    const left = await request(billing.app)
      .get('/v1/operator/billing/deposits')
      .set(await as());
    expect(left.body.data.map((d: { tx_signature: string }) => d.tx_signature)).not.toContain(signature);
    expect((await log()).filter((l) => l.action.startsWith('deposit.')).map((l) => l.action)).toEqual([
      'deposit.assign',
      'deposit.return',
    ]);
  });

  it('keeps the operator log append-only: the database refuses UPDATE and DELETE', async () => {
    await expect(
      sql`update billing.operator_actions set reason = 'x'`.execute(billing.deps.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from billing.operator_actions`.execute(billing.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });
});
