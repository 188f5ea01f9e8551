import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type SharedInfra } from '@meridian/runtime';
import { SERVICE, leanRoutes, routes } from './app.js';
import { parseConfig } from './config.js';
import { dataContext } from './context.js';
import { migrations } from './db/migrations/index.js';
import { loadRecordedFeeds } from './domain/feeds/index.js';
import { startCombinedBackfill } from './ingest/combined-backfill.js';
import { ingestRpc } from './ingest/rpc.js';
import { startMarketReplay } from './replay/market-replay.js';
import { startRetentionPurge } from './retention/purge-job.js';

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.data],
      outbox: true,
      routes,
      leanRoutes,
      rpc: (deps) => [ingestRpc(dataContext(deps).ingestor)],
      background: (deps) => {
        const purge = startRetentionPurge(deps.db, deps.logger, deps.config.retention);
        // Without DATABASE_URL the service runs on PGlite (see databaseTarget in @meridian/runtime).
        const backfill = startCombinedBackfill(deps.db, deps.logger, {
          singleConnection: !deps.config.DATABASE_URL,
        });
        if (deps.config.DATA_REPLAY === 'off') return [purge.stop, backfill.stop];
        const replay = startMarketReplay(dataContext(deps).ingestor, deps.logger);
        const feeds = loadRecordedFeeds(deps, new Date()).catch((err: unknown) =>
          deps.logger.error({ err }, 'recorded feeds could not be replayed'),
        );
        return [purge.stop, backfill.stop, replay.stop, async () => void (await feeds)];
      },
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
