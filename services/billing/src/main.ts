import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type SharedInfra } from '@meridian/runtime';
import { routes } from './app.js';
import { parseConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { lendBus, SERVICE } from './deps.js';
import { consumers } from './events/account-created.js';
import { syncPrices } from './flows/sync-prices.js';
import { startDepositWatcher } from './jobs/deposit-watcher.js';
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
      streams: [STREAMS.billing, STREAMS.identity],
      outbox: true,
      routes,
      prepare: syncPrices,
      rpc: rpcHandlers,
      consumers,
      // The plan lapse, the deposit watcher when SOLANA_RPC_URL and DEPOSIT_ADDRESS are set, and
      // the bus lent to the operators' commands this process serves (billing:admin).
      background: (deps) => {
        const watcher = startDepositWatcher(deps);
        return [startPlanLapse(deps), lendBus(deps.bus), ...(watcher ? [watcher.stop] : [])];
      },
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
