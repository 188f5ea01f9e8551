import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { RPC, type PaymentRequirements } from '@meridian/contracts';
import type { LocalWallet } from '@meridian/test-peers';
import { claimPayment, findPayment } from '../../src/db/repositories/payments.js';
import { reconcilePayments } from '../../src/flows/reconcile-payments.js';
import { checkPayment } from '../../src/flows/verify-payment.js';
import { RESOURCE, startX402, type X402 } from './harness.js';

const GIVE_UP_MS = 60_000;
/** Long, so the service's own job runs once at its start only and the passes here are the test's. */
const EVERY_MS = 3_600_000;

/**
 * Payments left `settling` (the service died between its claim and the settlement) or `pending`
 * (the facilitator answered pending), reconciled against the local facilitator and its chain
 * (LiteSVM, read over JSON-RPC). A crash is simulated by doing what the settle flow does up to
 * the point it dies: the claim, and for some the facilitator's settlement.
 */
describe('reconciliation of open x402 payments', () => {
  let x402: X402;
  let buyer: LocalWallet;
  let ours: PaymentRequirements;

  beforeAll(async () => {
    x402 = await startX402('x402_reconcile', {
      RECONCILE_AFTER_MS: '1000',
      RECONCILE_EVERY_MS: String(EVERY_MS),
      RECONCILE_GIVE_UP_MS: String(GIVE_UP_MS),
    });
    buyer = await x402.facilitator.wallet({ usdc: 1_000_000 });
    ours = x402.requirements();
  }, 90_000);

  afterAll(async () => {
    await x402?.close();
  });

  beforeEach(async () => {
    await x402.facilitator.setMode({ mode: 'normal' });
  });

  const call = (header: string) => ({ header, resource: RESOURCE, requirements: ours });
  /** A pass as if run `ms` after now, so the claims just made are old enough. */
  const passIn = (ms = 5_000) => reconcilePayments(x402.deps, new Date(Date.now() + ms));

  /** What the settle flow writes before it asks the facilitator: a crash right after leaves this. */
  async function claimed(): Promise<{ id: string; header: string }> {
    const header = await x402.pay(buyer, ours);
    const checked = await checkPayment(call(header));
    if (!checked.ok) throw new Error(checked.detail);
    const { paymentId } = checked.value;
    await claimPayment(x402.deps.db, {
      payment_id: paymentId,
      payer: null,
      amount_atomic: 10_000,
      asset: ours.asset,
      network: ours.network,
      pay_to: ours.payTo,
      resource: RESOURCE,
      created_at: new Date(),
      payload: header,
    });
    return { id: paymentId, header };
  }

  it('settles a payment the facilitator settled before the crash, from the chain, and announces it once', async () => {
    const { id, header } = await claimed();
    const checked = await checkPayment(call(header));
    const settled = await x402.deps.facilitator.settle(checked.ok ? checked.value.payload : never(), ours);
    expect(settled.kind).toBe('settled');
    const signature = settled.kind === 'settled' ? settled.receipt.transaction : '';
    expect(await findPayment(x402.deps.db, id)).toMatchObject({ state: 'settling' });

    await passIn();
    expect(await findPayment(x402.deps.db, id)).toMatchObject({
      state: 'settled',
      payer: buyer.address,
      transaction: signature,
      settled_at: expect.any(Date),
    });
    await passIn();
    const events = await sql<{ n: number }>`
      select count(*)::int as n from x402.outbox
      where subject = 'x402.payment.settled.v1' and payload->'data'->>'payment_id' = ${id}`.execute(
      x402.deps.db,
    );
    expect(events.rows[0]!.n).toBe(1);
  });

  it('gives back a claim that was never sent, so the same payment buys a call', async () => {
    const { id, header } = await claimed();
    await passIn();
    expect(await findPayment(x402.deps.db, id)).toBeUndefined();
    expect(await x402.settle(call(header))).toMatchObject({ ok: true, data: { receipt: { success: true } } });
  });

  it('closes as failed a claim that was never sent and can no longer land', async () => {
    const { id } = await claimed();
    await x402.facilitator.expireBlockhash();
    await passIn();
    expect(await findPayment(x402.deps.db, id)).toMatchObject({
      state: 'failed',
      error_reason: expect.stringMatching(/simulation/),
    });
  });

  it('settles a pending payment by asking the facilitator again, as x402 retries a pending answer', async () => {
    await x402.facilitator.setMode({ mode: 'settle_pending' });
    const header = await x402.pay(buyer, ours);
    const pending = await x402.settle(call(header));
    expect(pending).toMatchObject({ ok: true, data: { receipt: { errorReason: 'settlement_pending' } } });
    const id = (pending as { data: { payment_id: string } }).data.payment_id;
    expect(await findPayment(x402.deps.db, id)).toMatchObject({ state: 'pending' });

    await x402.facilitator.setMode({ mode: 'normal' });
    const before = await x402.facilitator.balance(x402.facilitator.payTo);
    await passIn();
    expect(await findPayment(x402.deps.db, id)).toMatchObject({ state: 'settled', payer: buyer.address });
    expect((await x402.facilitator.balance(x402.facilitator.payTo)) - before).toBe(10_000n);
  });

  it('leaves for an operator what it cannot close past the bound, and lists it on its subject', async () => {
    const { id } = await claimed();
    await x402.facilitator.setMode({ mode: 'down' });
    await passIn();
    expect(await findPayment(x402.deps.db, id)).toMatchObject({ state: 'settling' });
    // Looked at again a pass later (RECONCILE_EVERY_MS), past the bound.
    await passIn(EVERY_MS + GIVE_UP_MS);
    expect(await findPayment(x402.deps.db, id)).toMatchObject({ state: 'unreconciled' });

    const listed = await x402.client.request(RPC.x402PaymentsUnreconciledList, {}, { timeoutMs: 10_000 });
    expect(listed).toEqual({
      ok: true,
      data: {
        payments: [
          expect.objectContaining({
            payment_id: id,
            amount_atomic: 10_000,
            resource: RESOURCE,
            reason: expect.stringMatching(/^facilitator unreachable/),
          }),
        ],
      },
    });
  });
});

function never(): never {
  throw new Error('the payment did not check');
}
