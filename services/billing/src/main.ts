import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type SharedInfra } from '@meridian/runtime';
import { routes } from './app.js';
import { parseConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE } from './deps.js';
import { syncPrices } from './flows/sync-prices.js';
import { startPlanLapse } from './jobs/plan-lapse.js';
import { rpcHandlers } from './rpc/credit.js';

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.billing],
      outbox: true,
      routes,
      prepare: syncPrices,
      rpc: rpcHandlers,
      background: (deps) => [startPlanLapse(deps)],
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
