import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { RPC, type PaymentRequirements } from '@meridian/contracts';
import type { LocalWallet } from '@meridian/test-peers';
import { RESOURCE, startX402, type X402 } from './harness.js';

/**
 * The x402 service over its subjects, with x402's own SVM client signing real transactions and
 * the local facilitator (x402's exact SVM scheme) settling them on LiteSVM in its own process.
 */
describe('x402 payments', () => {
  let x402: X402;
  let buyer: LocalWallet;
  let ours: PaymentRequirements;

  beforeAll(async () => {
    x402 = await startX402('x402_payments');
    buyer = await x402.facilitator.wallet({ usdc: 1_000_000 });
    ours = x402.requirements();
  }, 90_000);

  afterAll(async () => {
    await x402?.close();
  });

  beforeEach(async () => {
    await x402.facilitator.setMode({ mode: 'normal' });
  });

  const call = (header: string, requirements = ours) => ({ header, resource: RESOURCE, requirements });
  const category = (reply: { ok: boolean; problem?: { error_category: string; status: number } }) =>
    reply.ok ? 'ok' : `${reply.problem!.status} ${reply.problem!.error_category}`;

  it('answers the fee payer of the facilitator for our network', async () => {
    const reply = await x402.client.request(RPC.x402SupportedRead, { network: x402.facilitator.network });
    expect(reply).toEqual({
      ok: true,
      data: { network: x402.facilitator.network, fee_payer: x402.facilitator.feePayer },
    });
  });

  it('verifies, settles once, moves exactly the price, stores the payment and announces it', async () => {
    const before = await x402.facilitator.balance(x402.facilitator.payTo);
    const buyerBefore = await x402.facilitator.balance(buyer.address);
    const header = await x402.pay(buyer, ours);
    const verified = await x402.verify(call(header));
    expect(verified).toEqual({ ok: true, data: { payment_id: expect.any(String), payer: buyer.address } });
    const settled = await x402.settle(call(header));
    expect(settled).toEqual({
      ok: true,
      data: {
        payment_id: (verified as { data: { payment_id: string } }).data.payment_id,
        receipt: {
          success: true,
          transaction: expect.any(String),
          network: ours.network,
          payer: buyer.address,
        },
      },
    });
    expect((await x402.facilitator.balance(x402.facilitator.payTo)) - before).toBe(10_000n);
    expect(buyerBefore - (await x402.facilitator.balance(buyer.address))).toBe(10_000n);

    const receipt = (settled as { data: { receipt: { transaction: string } } }).data.receipt;
    const row = await x402.deps.db
      .selectFrom('payments')
      .select(['state', 'payer', 'amount_atomic', 'resource', 'transaction', 'settled_at'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      state: 'settled',
      payer: buyer.address,
      amount_atomic: 10_000,
      resource: RESOURCE,
      transaction: receipt.transaction,
      settled_at: expect.any(Date),
    });
    const events = await sql<{ subject: string; payload: { data: Record<string, unknown> } }>`
      select subject, payload from x402.outbox`.execute(x402.deps.db);
    expect(events.rows).toEqual([
      expect.objectContaining({
        subject: 'x402.payment.settled.v1',
        payload: expect.objectContaining({
          data: expect.objectContaining({
            payer: buyer.address,
            amount_atomic: 10_000,
            transaction: receipt.transaction,
          }),
        }),
      }),
    ]);

    // The same payment again, before verification and at settlement: refused, nothing moves.
    expect(category(await x402.verify(call(header)))).toBe('402 payment_replayed');
    expect(category(await x402.settle(call(header)))).toBe('402 payment_replayed');
    expect((await x402.facilitator.balance(x402.facilitator.payTo)) - before).toBe(10_000n);
  });

  it('refuses a payment for another amount or another recipient, and a tampered header', async () => {
    const cheaper = await x402.pay(buyer, { ...ours, amount: '5000' });
    expect(category(await x402.verify(call(cheaper)))).toBe('402 amount_mismatch');
    const other = await x402.facilitator.wallet();
    await x402.facilitator.wallet(); // another owner: no token account needed for the refusal
    const elsewhere = await x402.pay(buyer, { ...ours, payTo: other.address });
    expect(category(await x402.verify(call(elsewhere)))).toBe('402 recipient_mismatch');
    const header = await x402.pay(buyer, ours);
    expect(category(await x402.verify(call(`${header.slice(0, 40)}!!${header.slice(42)}`)))).toBe(
      '402 payment_undecodable',
    );
    const json = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    json.payload.transaction = json.payload.transaction.slice(0, -8) + 'AAAAAAAA';
    const tampered = Buffer.from(JSON.stringify(json)).toString('base64');
    expect(category(await x402.verify(call(tampered)))).toBe('402 verification_failed');
    // Settled without a verification first: the facilitator's settle verifies again and refuses.
    expect(await x402.settle(call(tampered))).toMatchObject({
      ok: true,
      data: { receipt: { success: false } },
    });
  });

  it('refuses a payment signed for one resource when it buys another, at verification and at settlement', async () => {
    const before = await x402.facilitator.balance(x402.facilitator.payTo);
    const header = await x402.pay(buyer, ours);
    const other = {
      header,
      resource: 'http://gateway.test/v1/data/fx/spot/reference_rate?entity=EUR-USD',
      requirements: ours,
    };
    expect(category(await x402.verify(other))).toBe('402 resource_mismatch');
    expect(category(await x402.settle(other))).toBe('402 resource_mismatch');
    expect(await x402.facilitator.balance(x402.facilitator.payTo)).toBe(before);
    expect(category(await x402.verify(call(header)))).toBe('ok');
  });

  it('refuses a payer without the funds, and a payment over an expired blockhash', async () => {
    const poor = await x402.facilitator.wallet({ usdc: 5_000 });
    const reply = await x402.verify(call(await x402.pay(poor, ours)));
    expect(category(reply)).toBe('402 verification_failed');
    expect((reply as { problem: { detail: string } }).problem.detail).toMatch(/simulation/);
    const stale = await x402.pay(buyer, ours);
    await x402.facilitator.expireBlockhash();
    expect(category(await x402.verify(call(stale)))).toBe('402 verification_failed');
  });

  it('answers 503 when the facilitator is down or slower than the bound', async () => {
    const header = await x402.pay(buyer, ours);
    await x402.facilitator.setMode({ mode: 'down' });
    expect(category(await x402.verify(call(header)))).toBe('503 facilitator_unavailable');
    await x402.facilitator.setMode({ mode: 'slow', delayMs: 4_000 });
    const started = Date.now();
    expect(category(await x402.verify(call(header)))).toBe('503 facilitator_unavailable');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('settles a payment once when two settlements of it race (one claim wins), and announces it on the bus', async () => {
    const seen: Array<{ payer: string; amount_atomic: number }> = [];
    const subscription = await x402.client.subscribe<{ payer: string; amount_atomic: number }>(
      'x402.payment.settled.v1',
      (event) => void seen.push(event.data),
    );
    const before = await x402.facilitator.balance(x402.facilitator.payTo);
    const header = await x402.pay(buyer, ours);
    const replies = await Promise.all([
      x402.settle(call(header)),
      x402.settle(call(header)),
      x402.settle(call(header)),
    ]);
    const outcomes = replies.map((r) =>
      r.ok ? (r.data as { receipt: { success: boolean } }).receipt.success : category(r),
    );
    expect(outcomes.sort()).toEqual(['402 payment_replayed', '402 payment_replayed', true]);
    expect((await x402.facilitator.balance(x402.facilitator.payTo)) - before).toBe(10_000n);
    for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([expect.objectContaining({ payer: buyer.address, amount_atomic: 10_000 })]);
    await subscription.close();
  });

  it('counts verifications and settlements by outcome and reason', async () => {
    const metrics = await (await fetch(`${x402.url}/metrics`)).text();
    expect(metrics).toMatch(/x402_verifications_total\{outcome="valid",reason="none"[^}]*\} [1-9]/);
    expect(metrics).toMatch(
      /x402_verifications_total\{outcome="invalid",reason="amount_mismatch"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(
      /x402_verifications_total\{outcome="unavailable",reason="facilitator_unavailable"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(/x402_settlements_total\{outcome="settled",reason="none"[^}]*\} [1-9]/);
    expect(metrics).toMatch(
      /x402_settlements_total\{outcome="refused",reason="payment_replayed"[^}]*\} [1-9]/,
    );
  });

  it('a settlement the facilitator refuses gives the claim back; a pending one keeps it', async () => {
    const header = await x402.pay(buyer, ours);
    await x402.facilitator.setMode({ mode: 'settle_fails' });
    const failed = await x402.settle(call(header));
    expect(failed).toMatchObject({
      ok: true,
      data: { receipt: { success: false, errorReason: 'transaction_failed' } },
    });
    await x402.facilitator.setMode({ mode: 'settle_pending' });
    const pending = await x402.settle(call(header));
    expect(pending).toMatchObject({
      ok: true,
      data: { receipt: { success: false, errorReason: 'settlement_pending' } },
    });
    const row = await x402.deps.db
      .selectFrom('payments')
      .select(['state'])
      .where('payment_id', '=', (pending as { data: { payment_id: string } }).data.payment_id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('pending');
    expect(category(await x402.settle(call(header)))).toBe('402 payment_replayed');
  });
});
