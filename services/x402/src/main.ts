import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type ServiceDeps, type SharedInfra } from '@meridian/runtime';
import { httpFacilitator } from './adapters/facilitator.js';
import { paymentMetrics } from './adapters/metrics.js';
import { routes } from './app.js';
import { parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type X402Deps } from './deps.js';
import { rpcHandlers } from './rpc/payments.js';

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
  };
}

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  let built: X402Deps | undefined;
  // startService hands one deps object to every hook: x402's own parts are built once.
  const full = (deps: ServiceDeps<Database, Config>) => (built ??= x402Deps(deps));
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.x402],
      outbox: true,
      routes: (deps) => routes(full(deps)),
      rpc: (deps) => rpcHandlers(full(deps)),
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
