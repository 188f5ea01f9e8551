import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { callerHeaders } from '@meridian/http-kit/testing';
import { RPC, billingHistoryRowSchema, creditsAnswerSchema } from '@meridian/contracts';
import { recordDeposit } from '../../src/flows/record-deposit.js';
import { startBilling, type Billing } from './harness.js';

const DEPOSIT_ADDRESS = 'Dep1t5WaLLet1111111111111111111111111111111';

describe('credits and billing history', () => {
  let billing: Billing;

  beforeAll(async () => {
    billing = await startBilling('billing_credits', {
      DEPOSIT_ADDRESS,
      SOLANA_NETWORK: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    });
  });
  afterEach(async () => billing.assertBalancesMatchLedger());
  afterAll(async () => billing?.close());

  const credits = async (accountId: string, query = '') => {
    const res = await request(billing.app)
      .get(`/v1/credits${query}`)
      .set(await billing.as(accountId));
    return res;
  };
  const history = async (accountId: string, query = '') =>
    request(billing.app)
      .get(`/v1/account/billing/history${query}`)
      .set(await billing.as(accountId));

  it('pages the ledger newest first with the balance of the whole ledger and the top-up instructions', async () => {
    const account = randomUUID();
    for (let i = 0; i < 5; i++) await billing.grant(account, 1_000_000);
    const first = await credits(account, '?limit=2');
    expect(first.status).toBe(200);
    const body = creditsAnswerSchema.strict().parse(first.body);
    expect(body.balance_atomic).toBe(5_000_000);
    expect(body.balance_usd).toBe(5);
    expect(body.entries).toHaveLength(2);
    expect(body.entries[0]!.id).toBeGreaterThan(body.entries[1]!.id);
    expect(body.entries[0]).toMatchObject({
      delta_atomic: 1_000_000,
      direction: 'credit',
      reason: 'admin_grant',
      actor: 'operator:test',
    });
    expect(body.topup).toEqual({
      deposit_address: DEPOSIT_ADDRESS,
      memo: `top-${account}`,
      asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    });
    const second = creditsAnswerSchema.parse(
      (await credits(account, `?limit=2&before=${body.next_before}`)).body,
    );
    const third = creditsAnswerSchema.parse(
      (await credits(account, `?limit=2&before=${second.next_before}`)).body,
    );
    expect(third.entries).toHaveLength(1);
    expect(third.next_before).toBeNull();
    expect(third.balance_atomic).toBe(5_000_000);
    const ids = [...body.entries, ...second.entries, ...third.entries].map((e) => e.id);
    expect(new Set(ids).size).toBe(5);
  });

  it('refuses limit and before out of range, and a caller without a session', async () => {
    const account = randomUUID();
    for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?before=0', '?before=-3', '?limt=5'])
      expect((await credits(account, q)).status).toBe(400);
    const keyed = await request(billing.app)
      .get('/v1/credits')
      .set(await billing.as(account).then(() => ({})));
    expect(keyed.status).toBe(401);
  });

  it("lists the caller's movements and the direct payments of its own orders, never another's or unmatched deposits", async () => {
    const account = randomUUID();
    const other = randomUUID();
    await billing.grant(account, 30_000_000);
    await billing.grant(other, 30_000_000);
    expect(
      await billing.client.request(RPC.billingCreditSpend, {
        account_id: account,
        order_id: 'run-hist00001',
        item: 'run:audit_base',
      }),
    ).toMatchObject({ ok: true });
    expect(
      await billing.client.request(RPC.billingCreditSpend, {
        account_id: other,
        order_id: 'run-hist00002',
        item: 'run:audit_base',
      }),
    ).toMatchObject({ ok: true });
    const quote = await billing.client.request<{ memo: string; amount_atomic: number }>(
      RPC.billingOrderRegister,
      {
        account_id: account,
        order_id: 'booking-hist00003',
        item: 'booking:consulting',
      },
    );
    expect(quote).toMatchObject({
      ok: true,
      data: { memo: 'booking-hist00003', amount_atomic: 150_000_000, deposit_address: DEPOSIT_ADDRESS },
    });
    const deposit = (tx_signature: string, memo: string | null, amount_atomic: number) =>
      recordDeposit(billing.deps, 'watched', {
        tx_signature,
        slot: 1,
        block_time: new Date(),
        amount_atomic,
        memo,
      });
    expect(await deposit(`sig-pay-${account}`, 'booking-hist00003', 150_000_000)).toBe('order_payment');
    expect(await deposit(`sig-top-${account}`, `top-${account}`, 2_500_000)).toBe('topup');
    expect(await deposit(`sig-top-${account}`, `top-${account}`, 2_500_000)).toBe('topup');
    expect(await deposit(`sig-old-${account}`, account, 7_000_000)).toBe('retired_rail');
    expect(await deposit(`sig-none-${account}`, 'hello', 1_000_000)).toBe('unmatched');

    const res = await history(account);
    expect(res.status).toBe(200);
    const rows = billingHistoryRowSchema.array().parse(res.body.data);
    expect(rows.map((r) => [r.kind, r.reason, r.direction, r.amount_atomic, r.balance_delta_atomic])).toEqual(
      [
        ['ledger', 'topup_usdc', 'credit', 2_500_000, 2_500_000],
        ['payment', 'booking_payment', 'payment', 150_000_000, 0],
        ['ledger', 'report', 'debit', 9_000_000, -9_000_000],
        ['ledger', 'admin_grant', 'credit', 30_000_000, 30_000_000],
      ],
    );
    expect(rows[0]!.tx_signature).toBe(`sig-top-${account}`);
    expect(rows[1]).toMatchObject({ ref: 'booking-hist00003', tx_signature: `sig-pay-${account}` });
    expect(rows[2]).toMatchObject({ ref: 'run-hist00001', tx_signature: null });
    expect(res.body.meta).toMatchObject({ next_cursor: null, truncated: false });
    expect(JSON.stringify(res.body)).not.toContain('run-hist00002');
    expect((await credits(account)).body.balance_atomic).toBe(30_000_000 - 9_000_000 + 2_500_000);
  });

  it('pages with a signed cursor bound to the account and drops whole tail rows to fit the token budget', async () => {
    const account = randomUUID();
    for (let i = 0; i < 30; i++) await billing.grant(account, 1_000 + i);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await history(account, `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      cursor = res.body.meta.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);

    const small = await history(account, '?limit=100&max_response_tokens=500');
    expect(small.body.meta.truncated).toBe(true);
    expect(small.body.data.length).toBeGreaterThan(0);
    expect(small.body.data.length).toBeLessThan(30);
    expect(JSON.stringify(small.body).length).toBeLessThanOrEqual(500 * 4);
    const rest = await history(
      account,
      `?limit=100&cursor=${encodeURIComponent(small.body.meta.next_cursor)}`,
    );
    expect(small.body.data.length + rest.body.data.length).toBe(30);

    const other = await history(randomUUID(), `?cursor=${encodeURIComponent(small.body.meta.next_cursor)}`);
    expect(other.status).toBe(400);
    expect(other.body.error_category).toBe('invalid_cursor');
    const forged = `${small.body.meta.next_cursor.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`;
    expect((await history(account, `?cursor=${forged}`)).status).toBe(400);
    for (const q of ['?limit=0', '?limit=101', '?max_response_tokens=499', '?max_response_tokens=16001'])
      expect((await history(account, q)).status).toBe(400);
  });

  it('answers the deprecated rail with its headers and the bare account id as memo', async () => {
    const account = randomUUID();
    const res = await request(billing.app)
      .get('/v1/billing/account')
      .set(await billing.as(account));
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(new Date(res.headers.sunset!).getTime()).toBeGreaterThan(Date.now());
    expect(res.headers.link).toBe('</v1/credits>; rel="successor-version"');
    expect(res.body.data).toMatchObject({
      memo: account,
      deposit_address: DEPOSIT_ADDRESS,
      deprecated: true,
    });
  });
});

describe('a deployment without a deposit address', () => {
  let billing: Billing;

  beforeAll(async () => {
    billing = await startBilling('billing_nodeposit', {
      DEPOSIT_ADDRESS: '',
      SOLANA_NETWORK: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    });
  });
  afterAll(async () => billing?.close());

  const refusal = {
    status: 503,
    error_category: 'deposits_unavailable',
    detail: expect.stringContaining('DEPOSIT_ADDRESS'),
  };

  it('refuses the top-up answers with a 503 naming the setting, never an empty address', async () => {
    const account = randomUUID();
    for (const path of ['/v1/credits', '/v1/billing/account']) {
      const res = await request(billing.app)
        .get(path)
        .set(await billing.as(account));
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject(refusal);
    }
  });

  it('refuses a quote for an order paid by deposit, and quotes one paid from credit without an address', async () => {
    const account = randomUUID();
    const order = { account_id: account, item: 'booking:consulting' };
    const byDeposit = await billing.client.request(RPC.billingOrderRegister, {
      ...order,
      order_id: 'booking-nodep0001',
      payment: 'deposit',
    });
    expect(byDeposit).toMatchObject({ ok: false, problem: refusal });
    const byCredit = await billing.client.request(RPC.billingOrderRegister, {
      ...order,
      order_id: 'booking-nodep0002',
      payment: 'credit',
    });
    expect(byCredit).toMatchObject({
      ok: true,
      data: {
        deposit_address: null,
        amount_atomic: 150_000_000,
        network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      },
    });
  });

  it("names the deployment's network and its USDC mint in the price list", async () => {
    const res = await request(billing.app)
      .get('/v1/billing/prices')
      .set(await callerHeaders());
    expect(res.body.data.pay_per_call).toMatchObject({
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
    });
  });
});
