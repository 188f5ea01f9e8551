import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, RPC, STREAMS, orderPaidSchema, type CloudEvent } from '@meridian/contracts';
import { unmatchedDeposits } from '../../src/db/repositories/deposits.js';
import { readBalance } from '../../src/db/repositories/ledger.js';
import { recordDeposit } from '../../src/flows/record-deposit.js';
import { startBilling, type Billing } from './harness.js';

/** What a deposit's memo and amount make of it: no phantom credit, no lost excess. */
describe('deposits by memo and amount', () => {
  let billing: Billing;
  const paid: Array<{ order_id: string; amount_atomic: number }> = [];
  let closeConsumer: () => Promise<void>;

  beforeAll(async () => {
    billing = await startBilling('billing_deposit_memos');
    const consumer = await billing.client.consume({
      stream: STREAMS.billing.name,
      durable: 'billing_test__deposit_order_paid',
      filterSubject: EVENTS.billingOrderPaid,
      handler: async (event: CloudEvent<never>) => {
        paid.push(orderPaidSchema.parse(event.data));
      },
    });
    closeConsumer = () => consumer.close();
  });
  afterEach(async () => billing.assertBalancesMatchLedger());
  afterAll(async () => {
    await closeConsumer?.();
    await billing?.close();
  });

  const deposit = (tx_signature: string, memo: string, amount_atomic: number) =>
    recordDeposit(billing.deps, 'watched', {
      tx_signature,
      slot: 1,
      block_time: new Date(),
      amount_atomic,
      memo,
    });
  const registerRun = async (account: string, orderId: string) =>
    billing.client.request(RPC.billingOrderRegister, {
      account_id: account,
      order_id: orderId,
      item: 'run:audit_base',
    });
  const history = async (account: string) =>
    (
      await request(billing.app)
        .get('/v1/account/billing/history')
        .set(await billing.as(account))
    ).body.data as Array<{
      reason: string;
      amount_atomic: number;
      balance_delta_atomic: number;
      tx_signature: string;
    }>;

  it('lands a top-up to an account that does not exist among unmatched deposits, crediting no one', async () => {
    const phantom = randomUUID();
    const signature = `sig-phantom-${phantom}`;
    expect(await deposit(signature, `top-${phantom}`, 20_000_000)).toBe('unmatched');
    expect(await readBalance(billing.deps.db, phantom)).toBe(0);
    expect((await unmatchedDeposits(billing.deps.db, 100)).map((d) => d.tx_signature)).toContain(signature);
  });

  it('credits a top-up to an account identity knows, even before its created event arrived', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    expect(await deposit(`sig-known-${account}`, `top-${account}`, 20_000_000)).toBe('topup');
    expect(await readBalance(billing.deps.db, account)).toBe(20_000_000);
  });

  it('credits what a deposit pays over its order as a top-up of the ordering account', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    expect(await registerRun(account, 'run-overpay01')).toMatchObject({
      ok: true,
      data: { amount_atomic: 9_000_000 },
    });
    const signature = `sig-overpay-${account}`;
    expect(await deposit(signature, 'run-overpay01', 20_000_000)).toBe('order_payment');
    expect(await readBalance(billing.deps.db, account)).toBe(11_000_000);
    const rows = await history(account);
    expect(rows.map((r) => [r.reason, r.amount_atomic, r.balance_delta_atomic, r.tx_signature])).toEqual(
      expect.arrayContaining([
        ['topup_usdc', 11_000_000, 11_000_000, signature],
        ['report_payment', 9_000_000, 0, signature],
      ]),
    );
    expect(rows).toHaveLength(2);
    await waitFor(() => paid.some((p) => p.order_id === 'run-overpay01'), { what: 'the order paid' });
    expect(paid.find((p) => p.order_id === 'run-overpay01')!.amount_atomic).toBe(9_000_000);
  });

  it('leaves an underpayment unpaid and unmatched, for an operator to assign or return', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    await registerRun(account, 'run-underpay1');
    const signature = `sig-underpay-${account}`;
    expect(await deposit(signature, 'run-underpay1', 5_000_000)).toBe('unmatched');
    expect(await readBalance(billing.deps.db, account)).toBe(0);
    expect((await unmatchedDeposits(billing.deps.db, 100)).map((d) => d.tx_signature)).toContain(signature);
  });
});
