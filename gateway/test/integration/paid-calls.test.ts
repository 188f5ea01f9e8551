import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createNatsBus, type Bus } from '@meridian/bus';
import { deleteNatsNamespace } from '@meridian/bus/testing';
import { RPC, SOLANA_DEVNET, USDC_MINTS, type PaymentCallRequest, type RpcReply } from '@meridian/contracts';
import {
  createHttpApp,
  finishApp,
  problem,
  requireCaller,
  startServer,
  type RunningServer,
} from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { start as startGateway } from '../../src/main.js';

const PATH = '/v1/data/crypto/spot/reference_price';
const FEE_PAYER = 'FacilitatorFeePayer1111111111111111111111111';

/**
 * The edge's x402 path against a stand-in x402 service on the bus (the real one is tested in
 * services/x402 and end to end in tests-e2e/x402.test.ts) and a data service whose answer each
 * test picks: what is verified, served, settled or not, and answered.
 */
describe('gateway: paid data calls', () => {
  const namespace = `t${randomUUID().slice(0, 8)}`;
  let bus: Bus;
  let upstream: RunningServer;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  /** What the stand-in data service answers, and what it saw. */
  let dataStatus = 200;
  let dataCalls: Array<{ auth: string }> = [];
  /** What the stand-in x402 service answers, and what it was asked. */
  let verifyReply: RpcReply<unknown>;
  let settleReply: RpcReply<unknown>;
  let delayMs = 0;
  let asked: Array<{ subject: string; request: PaymentCallRequest }> = [];

  beforeAll(async () => {
    const logger = createLogger('paid-calls-test', { level: 'silent' });
    const app = createHttpApp({ logger, metrics: createMetrics('upstream', { defaultMetrics: false }) });
    const routes = express.Router();
    routes.get(/^\/v1\/data\/.*/, (req, res) => {
      dataCalls.push({ auth: req.caller!.auth });
      if (dataStatus >= 400)
        return void res
          .status(dataStatus)
          .type('application/problem+json')
          .json(problem(dataStatus === 404 ? 'not_found' : 'forbidden', 'stand-in refusal'));
      res.json({ data: { price: 1 }, meta: {}, provenance: { sources: [], method: 'stand-in' } });
    });
    app.use(requireCaller(testAssertionKey), routes);
    upstream = await startServer(finishApp(app), { port: 0 });

    bus = await createNatsBus({ url: TEST_NATS_URL, name: 'x402-stand-in', namespace, logger });
    const serve = (subject: string, reply: () => RpcReply<unknown>) =>
      bus.serve(subject, 'x402', async (request: PaymentCallRequest) => {
        asked.push({ subject, request });
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        return reply() as never;
      });
    await serve(RPC.x402SupportedRead, () => ({
      ok: true,
      data: { network: SOLANA_DEVNET, fee_payer: FEE_PAYER },
    }));
    await serve(RPC.x402PaymentVerify, () => verifyReply);
    await serve(RPC.x402PaymentSettle, () => settleReply);

    gateway = await startGateway({
      NATS_URL: TEST_NATS_URL,
      BUS_NAMESPACE: namespace,
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      LOG_LEVEL: 'silent',
      PORT: '0',
      METRICS_PORT: '0',
      DATA_URL: upstream.url,
      X402_PAY_TO: 'PayTo1111111111111111111111111111',
      X402_NETWORK: SOLANA_DEVNET,
      X402_TIMEOUT_MS: '500',
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bus?.close();
    await upstream?.close();
    await deleteNatsNamespace(TEST_NATS_URL, namespace);
  });

  beforeEach(() => {
    dataStatus = 200;
    dataCalls = [];
    asked = [];
    delayMs = 0;
    verifyReply = { ok: true, data: { payment_id: 'pid', payer: 'Buyer111' } };
    settleReply = {
      ok: true,
      data: {
        payment_id: 'pid',
        receipt: { success: true, transaction: 'Sig111', network: SOLANA_DEVNET, payer: 'Buyer111' },
      },
    };
  });

  const paid = (query = 'entity=BTC-USD', header = 'x-payment') =>
    fetch(`${gateway.url}${PATH}?${query}`, { headers: { [header]: 'cGF5bWVudA==' } });
  const decode = (value: string | null) => JSON.parse(Buffer.from(value!, 'base64').toString('utf8'));
  const subjects = () => asked.map((a) => a.subject).filter((s) => s !== RPC.x402SupportedRead);

  it('challenges with the facilitator fee payer, the network of the settings and its USDC mint, never cached', async () => {
    const res = await fetch(`${gateway.url}${PATH}?entity=BTC-USD`);
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, any>;
    expect(decode(res.headers.get('payment-required'))).toEqual(body);
    expect(body.accepts[0]).toMatchObject({
      network: SOLANA_DEVNET,
      asset: USDC_MINTS[SOLANA_DEVNET],
      extra: { feePayer: FEE_PAYER },
    });
  });

  it('verifies, serves as the x402 caller, settles, and answers 200 with the receipt', async () => {
    const res = await paid();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ price: 1 });
    expect(decode(res.headers.get('payment-response'))).toEqual({
      success: true,
      transaction: 'Sig111',
      network: SOLANA_DEVNET,
      payer: 'Buyer111',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(dataCalls).toEqual([{ auth: 'x402' }]);
    expect(subjects()).toEqual([RPC.x402PaymentVerify, RPC.x402PaymentSettle]);
    expect(asked.at(-1)!.request).toMatchObject({
      header: 'cGF5bWVudA==',
      resource: `${gateway.url}${PATH}?entity=BTC-USD`,
      requirements: {
        amount: '10000',
        payTo: 'PayTo1111111111111111111111111111',
        extra: { feePayer: FEE_PAYER },
      },
    });
  });

  it('passes a data answer of 404 or 403 on as it is and settles nothing', async () => {
    for (const status of [404, 403]) {
      asked = [];
      dataStatus = status;
      const res = await paid();
      expect(res.status).toBe(status);
      expect(res.headers.get('payment-response')).toBeNull();
      expect(subjects()).toEqual([RPC.x402PaymentVerify]);
    }
  });

  it('answers a refused payment with the challenge naming the reason, without asking the data service', async () => {
    verifyReply = {
      ok: false,
      problem: problem('payment_required', 'The amount is 5000.', { category: 'amount_mismatch' }),
    };
    const res = await paid();
    expect(res.status).toBe(402);
    const body = (await res.json()) as Record<string, any>;
    expect(body.error).toMatch(/^amount_mismatch: The amount is 5000\. .*X-PAYMENT/);
    expect(body).not.toHaveProperty('data');
    expect(dataCalls).toEqual([]);
  });

  it('answers an unsettled payment 402 with PAYMENT-RESPONSE success:false and no data', async () => {
    settleReply = {
      ok: true,
      data: {
        payment_id: 'pid',
        receipt: {
          success: false,
          transaction: '',
          network: SOLANA_DEVNET,
          errorReason: 'transaction_failed',
        },
      },
    };
    const res = await paid();
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('payment-response'))).toMatchObject({
      success: false,
      errorReason: 'transaction_failed',
    });
    const body = (await res.json()) as Record<string, any>;
    expect(body.error).toMatch(/^transaction_failed: /);
    expect(body).not.toHaveProperty('data');
  });

  it('answers 503 retryable within X402_TIMEOUT_MS when the x402 service does not answer', async () => {
    delayMs = 2_000;
    const started = Date.now();
    const res = await paid();
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(dataCalls).toEqual([]);
  });

  it('refuses a query the data service would refuse before any payment is verified', async () => {
    const res = await paid('entity=NOPE-NOPE');
    expect(res.status).toBe(400);
    expect(subjects()).toEqual([]);
  });

  it('counts challenges by reason and paid calls by outcome', async () => {
    const text = await (await fetch(gateway.metricsUrl)).text();
    expect(text).toMatch(/gateway_x402_challenges_total\{reason="no_payment"[^}]*\} [1-9]/);
    expect(text).toMatch(/gateway_x402_challenges_total\{reason="amount_mismatch"[^}]*\} [1-9]/);
    expect(text).toMatch(/gateway_x402_paid_calls_total\{outcome="settled"[^}]*\} [1-9]/);
    expect(text).toMatch(/gateway_x402_paid_calls_total\{outcome="not_charged"[^}]*\} [1-9]/);
    expect(text).toMatch(/gateway_x402_paid_calls_total\{outcome="unsettled"[^}]*\} [1-9]/);
  });
});
