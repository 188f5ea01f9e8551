import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type ServiceDeps, type SharedInfra } from '@meridian/runtime';
import { dataReady, leanRoutes, routes } from './app.js';
import { parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type DataDeps } from './deps.js';
import { createIngestor } from './flows/ingestor.js';
import { startCombinedBackfill } from './jobs/combined-backfill.js';
import { marketReplayNote, replayedSpotAt, startMarketReplay } from './jobs/market-replay.js';
import { loadRecordedFeeds, startFeedRefresh } from './jobs/recorded-feeds.js';
import { startRetentionPurge } from './jobs/retention-purge.js';
import { createFirstLoad } from './jobs/first-load.js';
import { createPriceCache } from './flows/resolve/reference-price.js';
import { ingestRpc } from './rpc/ingest.js';

/** Data's own parts over the chassis' deps: the ingestor, the price cache it clears, the replay note. */
export function dataDeps(deps: ServiceDeps<Database, Config>): DataDeps {
  const ingestor = createIngestor(deps.db);
  return {
    ...deps,
    ingestor,
    prices: createPriceCache(ingestor),
    firstLoad: createFirstLoad(deps.config.DATA_REPLAY === 'on'),
    replayNote: deps.config.DATA_REPLAY === 'on' ? marketReplayNote : () => undefined,
  };
}

/** The background tasks: retention purge, combined roll-up backfill and, unless DATA_REPLAY=off, the replays. */
function background(deps: DataDeps): Array<() => Promise<void>> {
  const purge = startRetentionPurge(deps.db, deps.logger, deps.config.retention);
  // Without DATABASE_URL the service runs on PGlite (see databaseTarget in @meridian/runtime).
  const backfill = startCombinedBackfill(deps.db, deps.logger, {
    singleConnection: !deps.config.DATABASE_URL,
  });
  if (deps.config.DATA_REPLAY === 'off') return [purge.stop, backfill.stop];
  const replay = startMarketReplay(deps.ingestor, deps.logger);
  const spotAt = replayedSpotAt();
  let refresh: { stop(): Promise<void> } | undefined;
  // The fresh feeds are played again at each slot once every recording has been played once.
  const feeds = loadRecordedFeeds(deps, new Date(), spotAt)
    .then(() => void (refresh = startFeedRefresh(deps, spotAt)))
    .catch((err: unknown) => deps.logger.error({ err }, 'recorded feeds could not be replayed'));
  // The first 48 h of bars and every recording played once: from then on no data is no data (404).
  void Promise.all([replay.settled(), feeds]).then(() => {
    deps.firstLoad.settle();
    deps.logger.info('replay first load done');
  });
  const stopFeeds = async () => {
    await feeds;
    await refresh?.stop();
  };
  return [purge.stop, backfill.stop, replay.stop, stopFeeds];
}

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  let built: DataDeps | undefined;
  // startService hands one deps object to every hook: data's own parts are built on the first call, once.
  const full = (deps: ServiceDeps<Database, Config>) => (built ??= dataDeps(deps));
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      streams: [STREAMS.data],
      outbox: true,
      routes: (deps) => routes(full(deps)),
      leanRoutes: (deps) => leanRoutes(full(deps)),
      rpc: (deps) => [ingestRpc(full(deps).ingestor)],
      ready: (deps) => dataReady(full(deps)),
      background: (deps) => background(full(deps)),
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
