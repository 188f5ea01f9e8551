import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { RPC, creditsAnswerSchema, type PostingReply } from '@meridian/contracts';
import { post } from '../../src/flows/post.js';
import { startBilling, type Billing } from './harness.js';

describe('the credit ledger', () => {
  let billing: Billing;

  beforeAll(async () => {
    billing = await startBilling('billing_ledger');
  });
  afterEach(async () => billing.assertBalancesMatchLedger());
  afterAll(async () => billing?.close());

  const spend = (account_id: string, order_id: string, item = 'run:audit_base') =>
    billing.client.request<PostingReply>(RPC.billingCreditSpend, { account_id, order_id, item });

  it('refuses to change or remove an entry: corrections are new entries', async () => {
    const account = randomUUID();
    await billing.grant(account, 5_000_000);
    await expect(
      sql`update billing.ledger_entries set delta_atomic = 1`.execute(billing.deps.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from billing.ledger_entries`.execute(billing.deps.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`truncate billing.ledger_entries cascade`.execute(billing.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });

  it('answers a retry with the original entry and a reused key with different fields with a conflict', async () => {
    const account = randomUUID();
    const posting = {
      account_id: account,
      reason: 'admin_grant' as const,
      amount_atomic: 1_000_000,
      ref: 'goodwill',
      actor: 'operator:ana',
      idempotency_key: 'grant-1',
    };
    const first = await post(billing.deps, posting);
    const again = await post(billing.deps, { ...posting, actor: 'operator:bo' });
    expect(first.ok && again.ok).toBe(true);
    if (!first.ok || !again.ok) return;
    expect(again.value).toMatchObject({ replayed: true, balance_atomic: 1_000_000 });
    expect(again.value.entry.id).toBe(first.value.entry.id);
    const changed = await post(billing.deps, { ...posting, amount_atomic: 2_000_000 });
    expect(changed).toMatchObject({ ok: false, code: 'conflict' });
  });

  it('lets exactly 10 of 50 concurrent spends through a balance good for 10', async () => {
    const account = randomUUID();
    await billing.grant(account, 10 * 9_000_000);
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => spend(account, `run-concurrent${i}`)),
    );
    expect(replies.filter((r) => r.ok)).toHaveLength(10);
    const refused = replies.filter((r) => !r.ok);
    expect(refused).toHaveLength(40);
    for (const r of refused)
      if (!r.ok) expect(r.problem).toMatchObject({ status: 402, error_category: 'insufficient_credit' });
    const res = await request(billing.app)
      .get('/v1/credits?limit=100')
      .set(await billing.as(account));
    expect(res.body.balance_atomic).toBe(0);
    expect(res.body.entries.filter((e: { reason: string }) => e.reason === 'report')).toHaveLength(10);
  });

  it('spends for an order once, whatever the retries, at the price the list shows', async () => {
    const account = randomUUID();
    await billing.grant(account, 40_000_000);
    const prices = await request(billing.app)
      .get('/v1/billing/prices')
      .set(await billing.as(account));
    const shown = prices.body.data.analysis_runs.find(
      (r: { tier: string }) => r.tier === 'audit_secure',
    ).price_atomic;
    const replies = await Promise.all(
      [1, 2, 3].map(() => spend(account, 'run-retried01', 'run:audit_secure')),
    );
    const ids = new Set(replies.map((r) => (r.ok ? r.data.entry_id : -1)));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.ok && !r.data.replayed)).toHaveLength(1);
    expect(replies[0]).toMatchObject({
      ok: true,
      data: { amount_atomic: shown, balance_atomic: 40_000_000 - shown },
    });
  });

  it("refuses another account's order id and a spend that does not fit, writing nothing", async () => {
    const owner = randomUUID();
    const other = randomUUID();
    await billing.grant(owner, 9_000_000);
    await billing.grant(other, 9_000_000);
    expect(await spend(owner, 'run-owned0001')).toMatchObject({ ok: true });
    expect(await spend(other, 'run-owned0001')).toMatchObject({ ok: false, problem: { status: 409 } });
    expect(await spend(owner, 'run-toolarge1', 'run:audit_review')).toMatchObject({
      ok: false,
      // The detail is passed on to a person by analysis and requests: dollars, not atomic units.
      problem: { status: 402, detail: 'The credit balance is $0.00; this needs $99.00.' },
    });
    const credits = creditsAnswerSchema.parse(
      (
        await request(billing.app)
          .get('/v1/credits')
          .set(await billing.as(owner))
      ).body,
    );
    expect(credits.entries).toHaveLength(2);
  });

  it('refunds an order at most what it spent, each refund once', async () => {
    const account = randomUUID();
    await billing.grant(account, 29_000_000);
    expect(await spend(account, 'run-refunded1', 'run:audit_secure')).toMatchObject({ ok: true });
    const refund = (amount_atomic?: number, idempotency_key?: string) =>
      billing.client.request<PostingReply>(RPC.billingCreditRefund, {
        account_id: account,
        order_id: 'run-refunded1',
        actor: 'service:analysis',
        ...(amount_atomic === undefined ? {} : { amount_atomic }),
        ...(idempotency_key === undefined ? {} : { idempotency_key }),
      });
    expect(await refund(10_000_000, 'part-1')).toMatchObject({
      ok: true,
      data: { amount_atomic: 10_000_000 },
    });
    expect(await refund(10_000_000, 'part-1')).toMatchObject({ ok: true, data: { replayed: true } });
    expect(await refund(20_000_000, 'part-2')).toMatchObject({ ok: false, problem: { status: 409 } });
    const rest = await Promise.all([refund(undefined, 'rest-a'), refund(undefined, 'rest-b')]);
    expect(rest.filter((r) => r.ok)).toHaveLength(1);
    expect(rest.find((r) => r.ok)).toMatchObject({
      data: { amount_atomic: 19_000_000, balance_atomic: 29_000_000 },
    });
    const other = randomUUID();
    expect(
      await billing.client.request(RPC.billingCreditRefund, {
        account_id: other,
        order_id: 'run-refunded1',
        actor: 'x',
      }),
    ).toMatchObject({ ok: false, problem: { status: 404 } });
  });

  it('reads the balance over request/reply and refuses malformed requests', async () => {
    const account = randomUUID();
    await billing.grant(account, 1234);
    expect(await billing.client.request(RPC.billingBalanceRead, { account_id: account })).toEqual({
      ok: true,
      data: { account_id: account, balance_atomic: 1234 },
    });
    expect(await billing.client.request(RPC.billingBalanceRead, { account_id: 'nope' })).toMatchObject({
      ok: false,
      problem: { status: 400 },
    });
  });
});
