import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createNatsBus, type Bus } from '@meridian/bus';
import {
  RPC,
  X402_MAX_TIMEOUT_S,
  type PaymentCallRequest,
  type PaymentRequirements,
  type RpcReply,
} from '@meridian/contracts';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest } from '@meridian/runtime/testing';
import { startX402Facilitator, type LocalWallet, type X402Facilitator } from '@meridian/test-peers';
import type { X402Deps } from '../../src/deps.js';
import { start } from '../../src/main.js';

export interface X402 {
  deps: X402Deps;
  /** The service's HTTP address (probes and /metrics). */
  url: string;
  /** A client on the service's bus namespace, as the gateway is. */
  client: Bus;
  facilitator: X402Facilitator;
  /** Our requirements for one call of `amount` atomic units. */
  requirements(amount?: number): PaymentRequirements;
  /** A payment header signed by `wallet` with x402's SVM client for `requirements`. */
  pay(wallet: LocalWallet, requirements: PaymentRequirements): Promise<string>;
  verify(request: PaymentCallRequest): Promise<RpcReply<unknown>>;
  settle(request: PaymentCallRequest): Promise<RpcReply<unknown>>;
  close(): Promise<void>;
}

export const RESOURCE = 'http://gateway.test/v1/data/crypto/spot/reference_price?entity=BTC-USD';

/** The service as main.ts assembles it, with the local facilitator (its own process) on LiteSVM. */
export async function startX402(prefix: string, env: Record<string, string> = {}): Promise<X402> {
  const facilitator = await startX402Facilitator();
  const started = await startServiceForTest(start, prefix, {
    FACILITATOR_URL: facilitator.url,
    FACILITATOR_TIMEOUT_MS: '1500',
    SOLANA_RPC_URL: facilitator.rpcUrl,
    ...env,
  });
  const { service, ground } = started;
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'x402-test-client',
    namespace: ground.namespace,
    logger: createLogger('x402-test-client', { level: 'warn' }),
    metrics: createMetrics('x402-test-client', { defaultMetrics: false }),
  });
  const requirements = (amount = 10_000): PaymentRequirements => ({
    scheme: 'exact',
    network: facilitator.network,
    amount: String(amount),
    asset: facilitator.mint,
    payTo: facilitator.payTo,
    maxTimeoutSeconds: X402_MAX_TIMEOUT_S,
    extra: { feePayer: facilitator.feePayer },
  });
  return {
    deps: service.deps as unknown as X402Deps,
    url: service.url,
    client,
    facilitator,
    requirements,
    pay: async (wallet, reqs) => {
      const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
      const scheme = new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl });
      const partial = await scheme.createPaymentPayload(
        2,
        reqs as Parameters<typeof scheme.createPaymentPayload>[1],
      );
      const payload = {
        x402Version: 2,
        resource: { url: RESOURCE, mimeType: 'application/json' },
        accepted: reqs,
        payload: partial.payload,
      };
      return Buffer.from(JSON.stringify(payload)).toString('base64');
    },
    verify: (req) => client.request(RPC.x402PaymentVerify, req, { timeoutMs: 10_000 }),
    settle: (req) => client.request(RPC.x402PaymentSettle, req, { timeoutMs: 10_000 }),
    close: async () => {
      await client.close();
      await started.close();
      await facilitator.close();
    },
  };
}
