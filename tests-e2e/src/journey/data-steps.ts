import { expect } from '@jest/globals';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { paymentRequiredSchema, settleReceiptSchema } from '@meridian/contracts';
import { payingFetch } from '../x402.js';
import { FREE_METRIC, PRO_METRIC, problemOf, read, type Journey } from './journey.js';

/** The journey's data calls on the free plan: with the key, to its rate limit, and paid by x402 without a key. */

/** Reads a free metric with the key, and is refused a pro one on the free plan. */
export async function readFreeAndGatedMetric(j: Journey): Promise<void> {
  const free = await j.withKey(FREE_METRIC);
  expect(free.status).toBe(200);
  const envelope = (await free.json()) as {
    data: { price: number };
    meta: Record<string, unknown>;
    provenance: { method: string; sources: unknown[] };
  };
  expect(envelope.data.price).toBeGreaterThan(1000);
  expect(envelope.provenance.sources.length).toBeGreaterThan(0);
  expect(free.headers.get('ratelimit-limit')).toBe('10');
  expect(free.headers.get('ratelimit-policy')).toBe('"per-key";q=10;w=60');
  expect(Number(free.headers.get('ratelimit-remaining'))).toBeLessThan(10);
  expect(free.headers.get('ratelimit-reset')).toMatch(/^\d+$/);

  const gated = await j.withKey(PRO_METRIC);
  const problem = await problemOf(gated, 403, 'tier_forbidden');
  expect(problem.detail).toMatch(/crypto\/options\/chain.*pro/);
  expect(problem.retryable).toBe(false);
}

/** Reads until the free plan's bucket is spent: a 429 with the limit's headers. */
export async function hitFreeRateLimit(j: Journey): Promise<void> {
  // Sequential reads until the bucket of 10 a minute is spent (one token comes back every 6 s).
  const statuses: number[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < 15 && !refused; i++) {
    const res = await j.withKey(FREE_METRIC);
    statuses.push(res.status);
    if (res.status === 429) refused = res;
    else await res.arrayBuffer();
  }
  expect(statuses.at(-1)).toBe(429);
  expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
  // Ten tokens, one or two spent by step 5, at most one back meanwhile.
  expect(statuses.length).toBeGreaterThanOrEqual(8);
  expect(statuses.length).toBeLessThanOrEqual(11);
  const problem = await problemOf(refused!, 429, 'rate_limit');
  expect(problem.retryable).toBe(true);
  expect(problem.retry_after).toBeGreaterThanOrEqual(1);
  expect(refused!.headers.get('retry-after')).toBe(String(problem.retry_after));
  expect(refused!.headers.get('ratelimit-limit')).toBe('10');
  expect(refused!.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(refused!.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(problem.retry_after!);
  expect(refused!.headers.get('ratelimit-policy')).toBe('"per-key";q=10;w=60');
  expect(refused!.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
}

/** Pays one call with x402 from the wallet, no key; the same payment again is refused. */
export async function payOneCallWithX402(j: Journey): Promise<void> {
  const challenge = await fetch(j.url(FREE_METRIC));
  expect(challenge.status).toBe(402);
  const required = await read(challenge, paymentRequiredSchema);
  expect(required.accepts[0]).toMatchObject({
    network: j.facilitator.network,
    amount: '10000',
    payTo: j.facilitator.payTo,
    asset: j.facilitator.mint,
  });
  const sellerBefore = await j.facilitator.balance(j.facilitator.payTo);
  const walletBefore = await j.facilitator.balance(j.wallet.address);
  const { pay, sent } = await payingFetch(j.facilitator, j.wallet);
  const paid = await pay(j.url(FREE_METRIC));
  expect(paid.status).toBe(200);
  expect(sent).toHaveLength(1);
  expect(((await paid.json()) as { data: { price: number } }).data.price).toBeGreaterThan(1000);
  const receipt = settleReceiptSchema.parse(
    decodePaymentResponseHeader(paid.headers.get('payment-response')!),
  );
  expect(receipt).toMatchObject({ success: true, network: j.facilitator.network, payer: j.wallet.address });
  expect((await j.facilitator.balance(j.facilitator.payTo)) - sellerBefore).toBe(10_000n);
  expect(walletBefore - (await j.facilitator.balance(j.wallet.address))).toBe(10_000n);
  // The same payment twice is refused.
  const replayed = await fetch(j.url(FREE_METRIC), { headers: { 'payment-signature': sent[0]! } });
  expect(replayed.status).toBe(402);
  expect(((await replayed.json()) as { error: string }).error).toMatch(/^payment_replayed: /);
}
