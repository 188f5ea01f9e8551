import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type ServiceDeps, type SharedInfra } from '@meridian/runtime';
import { httpFacilitator } from './adapters/facilitator.js';
import { solanaPaymentChain } from './adapters/solana-rpc.js';
import { paymentMetrics } from './adapters/metrics.js';
import { routes } from './app.js';
import { parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type X402Deps } from './deps.js';
import { startReconciliation } from './jobs/reconcile-payments.js';
import { rpcHandlers } from './rpc/payments.js';

/** A landed transaction's message hash, as a payment is named at its claim (loaded when first needed). */
async function transactionHashOf(wireBase64: string): Promise<string> {
  const { decodeTransactionFromPayload, transactionMessageHash } = await import('@x402/svm');
  return transactionMessageHash(decodeTransactionFromPayload({ transaction: wireBase64 }));
}

/** x402's own parts over the chassis' deps: the facilitator client and the payment counters. */
function x402Deps(deps: ServiceDeps<Database, Config>): X402Deps {
  return {
    ...deps,
    facilitator: httpFacilitator({
      url: deps.config.FACILITATOR_URL,
      timeoutMs: deps.config.FACILITATOR_TIMEOUT_MS,
      supportedTtlMs: deps.config.SUPPORTED_TTL_MS,
    }),
    payments: paymentMetrics(deps.metrics),
    ...(deps.config.SOLANA_RPC_URL
      ? { chain: solanaPaymentChain(deps.config.SOLANA_RPC_URL, transactionHashOf) }
      : {}),
  };
}

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  let built: X402Deps | undefined;
  // startService hands one deps object to every hook: x402's own parts are built once.
  const full = (deps: ServiceDeps<Database, Config>) => (built ??= x402Deps(deps));
  const service = await startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.x402],
      outbox: true,
      routes: (deps) => routes(full(deps)),
      rpc: (deps) => rpcHandlers(full(deps)),
      background: (deps) => [startReconciliation(full(deps)).stop],
    },
    shared,
  );
  // The deps with x402's own parts, as the hooks got them (tests drive the flows with these).
  return Object.assign(service, { deps: full(service.deps as ServiceDeps<Database, Config>) });
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
