import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import {
  runScript,
  startX402Facilitator,
  type LocalWallet,
  type X402Facilitator,
} from '@meridian/test-peers';
import { replayLoaded, startSystem, type System } from './src/system.js';
import { payingFetch } from './src/x402.js';

interface Challenge {
  x402Version: number;
  error: string;
  resource: { url: string; mimeType: string };
  accepts: Array<Record<string, unknown> & { amount: string; extra: { feePayer: string } }>;
  extensions: Record<string, { info: Record<string, unknown>; schema: Record<string, unknown> }>;
}

const READ = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const SERIES = '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m';

/**
 * Pay per call end to end: every service and two gateway replicas as processes, the local
 * facilitator (x402's exact SVM scheme on LiteSVM, its own process), and x402's official client
 * (`@x402/fetch` with the SVM scheme) paying real signed transfers.
 */
describe('x402 pay per call through the gateway', () => {
  let facilitator: X402Facilitator;
  let system: System;
  let replica: string;
  let buyer: LocalWallet;

  beforeAll(async () => {
    facilitator = await startX402Facilitator();
    system = await startSystem('e2e_x402', {
      FACILITATOR_URL: facilitator.url,
      FACILITATOR_TIMEOUT_MS: '1500',
      X402_NETWORK: facilitator.network,
      X402_PAY_TO: facilitator.payTo,
    });
    replica = await system.addGateway();
    buyer = await facilitator.wallet({ usdc: 1_000_000 });
    await replayLoaded(system, READ);
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await facilitator?.close();
  });

  beforeEach(async () => {
    await facilitator.setMode({ mode: 'normal' });
  });

  /** A payment header signed for requirements other than the challenge's (the client cheats). */
  async function paymentFor(wallet: LocalWallet, change: Record<string, unknown>): Promise<string> {
    const challenge = await challengeOf(READ);
    const requirements = { ...challenge.accepts[0]!, ...change };
    const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
    const scheme = new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl });
    const partial = await scheme.createPaymentPayload(2, requirements as never);
    const payload = {
      x402Version: 2,
      resource: challenge.resource,
      accepted: requirements,
      payload: partial.payload,
    };
    return Buffer.from(JSON.stringify(payload)).toString('base64');
  }

  async function challengeOf(path: string): Promise<Challenge> {
    const res = await fetch(`${system.gatewayUrl}${path}`);
    expect(res.status).toBe(402);
    return (await res.json()) as Challenge;
  }

  const received = () => facilitator.balance(facilitator.payTo);

  async function refused(path: string, headers: Record<string, string>, base = system.gatewayUrl) {
    const res = await fetch(`${base}${path}`, { headers });
    const body = (await res.json()) as Challenge;
    return { status: res.status, body, receipt: res.headers.get('payment-response') };
  }

  it('challenges a keyless call with every field of the protocol', async () => {
    const res = await fetch(`${system.gatewayUrl}${READ}`);
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Challenge;
    expect(JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'))).toEqual(
      body,
    );
    expect(body).toMatchObject({
      x402Version: 2,
      resource: { url: `${system.gatewayUrl}${READ}`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: facilitator.network,
          amount: '10000',
          asset: facilitator.mint,
          payTo: facilitator.payTo,
          maxTimeoutSeconds: 60,
          extra: { feePayer: facilitator.feePayer },
        },
      ],
    });
    expect(body.error).toContain('X-PAYMENT');
    expect(body.extensions.bazaar).toMatchObject({ info: { input: { type: 'http', method: 'GET' } } });
    expect(body.extensions.bazaar!.schema).toHaveProperty('properties');
    expect((await challengeOf(SERIES)).accepts[0]!.amount).toBe('20000');
  });

  it('is paid by x402 client: 200, the envelope, the receipt, and exactly 10000 moved (20000 for a series)', async () => {
    const { pay } = await payingFetch(facilitator, buyer);
    const before = await received();
    const buyerBefore = await facilitator.balance(buyer.address);
    const res = await pay(`${system.gatewayUrl}${READ}`);
    expect(res.status).toBe(200);
    const envelope = (await res.json()) as { data: { price: number }; meta: unknown; provenance: unknown };
    expect(envelope.data.price).toBeGreaterThan(0);
    expect(envelope).toHaveProperty('provenance');
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(receipt).toMatchObject({ success: true, network: facilitator.network, payer: buyer.address });
    expect(receipt.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect((await received()) - before).toBe(10_000n);
    expect(buyerBefore - (await facilitator.balance(buyer.address))).toBe(10_000n);

    const series = await pay(`${system.gatewayUrl}${SERIES}`);
    expect(series.status).toBe(200);
    expect((await received()) - before).toBe(30_000n);
  });

  it('refuses the same payment again on another gateway replica, under either header name', async () => {
    const { pay, sent } = await payingFetch(facilitator, buyer);
    expect((await pay(`${system.gatewayUrl}${READ}`)).status).toBe(200);
    const before = await received();
    const header = sent.at(-1)!;
    for (const name of ['payment-signature', 'x-payment']) {
      const again = await refused(READ, { [name]: header }, replica);
      expect(again.status).toBe(402);
      expect(again.body.error).toMatch(/^payment_replayed: /);
      expect(again.body).not.toHaveProperty('data');
    }
    expect(await received()).toBe(before);
  });

  it('serves one payment sent to both replicas at once only once: one 200, one 402, one transfer', async () => {
    const before = await received();
    const header = await paymentFor(buyer, {});
    const answers = await Promise.all(
      [system.gatewayUrl, replica].map((base) => refused(READ, { 'payment-signature': header }, base)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402]);
    const loser = answers.find((a) => a.status === 402)!;
    expect(loser.body.error).toMatch(/^payment_replayed: /);
    expect(loser.body).not.toHaveProperty('data');
    expect((await received()) - before).toBe(10_000n);
  });

  it('refuses a wrong amount, a wrong recipient, a payer without funds, an expired blockhash and a tampered header', async () => {
    const before = await received();
    const other = await facilitator.wallet();
    const poor = await facilitator.wallet({ usdc: 5_000 });
    const cases: Array<[string, string]> = [
      [await paymentFor(buyer, { amount: '5000' }), 'amount_mismatch'],
      [await paymentFor(buyer, { payTo: other.address }), 'recipient_mismatch'],
      [await paymentFor(poor, {}), 'verification_failed'],
    ];
    const stale = await paymentFor(buyer, {});
    await facilitator.expireBlockhash();
    cases.push([stale, 'verification_failed']);
    const fresh = await paymentFor(buyer, {});
    cases.push([`${fresh.slice(0, 30)}%%${fresh.slice(32)}`, 'payment_undecodable']);
    for (const [header, reason] of cases) {
      const answer = await refused(READ, { 'payment-signature': header });
      expect({ status: answer.status, reason: answer.body.error.split(':')[0] }).toEqual({
        status: 402,
        reason,
      });
      expect(answer.body.accepts[0]!.amount).toBe('10000');
      expect(answer.body).not.toHaveProperty('data');
    }
    expect(await refused(READ, { 'payment-signature': stale })).toMatchObject({ status: 402 });
    expect((await refused(READ, { 'payment-signature': stale })).body.error).toMatch(/simulation/);
    expect(await received()).toBe(before);
  });

  it('refuses a payment signed for one resource on another, and the payment still buys its own', async () => {
    const before = await received();
    const header = await paymentFor(buyer, {});
    const elsewhere = await refused('/v1/data/fx/spot/reference_rate?entity=EUR-USD', {
      'payment-signature': header,
    });
    expect({ status: elsewhere.status, reason: elsewhere.body.error.split(':')[0] }).toEqual({
      status: 402,
      reason: 'resource_mismatch',
    });
    expect(await received()).toBe(before);
    expect((await refused(READ, { 'payment-signature': header })).status).toBe(200);
    expect((await received()) - before).toBe(10_000n);
  });

  it('charges nothing when the data service answers 400 or more', async () => {
    const { pay } = await payingFetch(facilitator, buyer);
    const before = await received();
    // A source the catalogue does not name is left to the data service (it may hold venues beyond
    // the catalogue): the call is challenged and paid, the data service refuses it.
    const res = await pay(
      `${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD&source=nowhere`,
    );
    const body = (await res.json()) as { status: number; detail: string };
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).not.toBe(402);
    expect(body.status).toBe(res.status);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await received()).toBe(before);
  });

  it('a failed settlement answers 402 with PAYMENT-RESPONSE success:false and no data', async () => {
    const header = await paymentFor(buyer, {});
    await facilitator.setMode({ mode: 'settle_fails' });
    const before = await received();
    const answer = await refused(READ, { 'payment-signature': header });
    expect(answer.status).toBe(402);
    expect(answer.body.error).toMatch(/^transaction_failed: /);
    expect(answer.body).not.toHaveProperty('data');
    expect(decodePaymentResponseHeader(answer.receipt!)).toMatchObject({ success: false });
    expect(await received()).toBe(before);
  });

  it('a settlement still pending after one retry answers 402 settlement_pending, and the payment is spent', async () => {
    const header = await paymentFor(buyer, {});
    await facilitator.setMode({ mode: 'settle_pending' });
    const pending = await refused(READ, { 'payment-signature': header });
    expect(pending.status).toBe(402);
    expect(pending.body.error).toMatch(/^settlement_pending: /);
    expect(decodePaymentResponseHeader(pending.receipt!)).toMatchObject({
      success: false,
      errorReason: 'settlement_pending',
    });
    await facilitator.setMode({ mode: 'normal' });
    expect((await refused(READ, { 'payment-signature': header }, replica)).body.error).toMatch(
      /^payment_replayed: /,
    );
  });

  it('answers 503 retryable, within a bound, when the facilitator is down or slow', async () => {
    const header = await paymentFor(buyer, {});
    await facilitator.setMode({ mode: 'down' });
    const down = await refused(READ, { 'payment-signature': header });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ retryable: true });
    await facilitator.setMode({ mode: 'slow', delayMs: 10_000 });
    const started = Date.now();
    const slow = await refused(READ, { 'payment-signature': header });
    expect(slow.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('`pnpm x402:pay <url>` pays one call with the official client and prints the data and the receipt', async () => {
    const before = await received();
    const run = await runScript('packages/local-chain/src/x402-pay.ts', [`${system.gatewayUrl}${READ}`], {
      X402_FACILITATOR_URL: facilitator.url,
    });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as {
      status: number;
      receipt: { success: boolean };
      body: { data: unknown };
    };
    expect(printed).toMatchObject({
      status: 200,
      receipt: { success: true, transaction: expect.any(String) },
    });
    expect(printed.body.data).toBeDefined();
    expect((await received()) - before).toBe(10_000n);
  });

  it('a call with an API key takes the key path, not x402, even with a payment header', async () => {
    const header = await paymentFor(buyer, {});
    const res = await fetch(`${system.gatewayUrl}${READ}`, {
      headers: { 'x-api-key': 'mk_live_notakey', 'payment-signature': header },
    });
    expect(res.status).toBe(401);
  });
});
