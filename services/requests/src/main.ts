import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type SharedInfra } from '@meridian/runtime';
import { routes } from './app.js';
import { parseConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE } from './deps.js';
import { consumers } from './events/order-paid.js';
import { startHoldExpiry } from './jobs/expire-holds.js';

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.requests, STREAMS.billing],
      outbox: true,
      routes,
      consumers,
      background: (deps) => [startHoldExpiry(deps)],
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
