import { catalogFor, STREAMS } from '@meridian/contracts';
import {
  collectGarbage,
  idleCompaction,
  isEntrypoint,
  runMain,
  type Periodic,
  startService,
  type ServiceDeps,
  type SharedInfra,
} from '@meridian/runtime';
import { dataReady, leanRoutes, routes } from './app.js';
import { parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type DataDeps } from './deps.js';
import { createAnswerCache } from './flows/answer-cache.js';
import { startAnswerNotices } from './flows/answer-notices.js';
import { createIngestor } from './flows/ingestor.js';
import { startCombinedBackfill } from './jobs/spot/combined-backfill.js';
import { marketReplayNote, replayedSpotAt, startMarketReplay } from './jobs/spot/market-replay.js';
import { REPLAYED_PERPS } from './jobs/derivatives/perp-replay.js';
import { startRecordedFeeds } from './jobs/feeds/recorded-feeds.js';
import { startRetentionPurge } from './jobs/retention-purge.js';
import { createLiveIngest, type LiveIngest } from './jobs/live-ingest.js';
import { CONNECTORS } from './adapters/connectors/index.js';
import { createFirstLoad } from './jobs/first-load.js';
import { createPriceCache } from './flows/resolve/spot/reference-price.js';
import { ingestRpc } from './rpc/ingest.js';

/** Data's own parts over the chassis' deps: the ingestor, the price cache it clears, the replay note. */
export function dataDeps(deps: ServiceDeps<Database, Config>, now: () => number = Date.now): DataDeps {
  const mode = deps.config.INGEST_MODE;
  const catalog = catalogFor(mode);
  const ingestor = createIngestor(deps.db, catalog);
  return {
    ...deps,
    catalog,
    ingestor,
    answers: createAnswerCache(ingestor, answerCacheMs(deps.config)),
    prices: createPriceCache(ingestor),
    firstLoad: createFirstLoad(mode !== 'off'),
    replayNote: mode === 'replay' ? marketReplayNote : () => undefined,
    derivedPerps: mode === 'replay' ? REPLAYED_PERPS : new Map(),
    live:
      mode === 'live'
        ? createLiveIngest({ ...deps, ingestor }, CONNECTORS, deps.config.liveIngest)
        : undefined,
    now,
  };
}

/** DATA_ANSWER_CACHE_MS, or its default: without DATABASE_URL (PGlite) no other process writes the data. */
function answerCacheMs(config: Config): number {
  return config.DATA_ANSWER_CACHE_MS ?? (config.DATABASE_URL ? 1000 : 60_000);
}

/** Other replicas told of each change stored here, and this one of theirs (flows/answer-notices.ts). */
function answerNotices(deps: DataDeps): () => Promise<void> {
  const notices = startAnswerNotices(deps, SERVICE).catch((err: unknown) => {
    deps.logger.warn({ err }, 'answers are not invalidated across replicas: no notice subscription');
    return undefined;
  });
  return async () => (await notices)?.close();
}

/** The background tasks: retention purge, combined roll-up backfill and the replays or the live connectors. */
function background(deps: DataDeps): Array<() => Promise<void>> {
  const purge = startRetentionPurge(deps.db, deps.logger, deps.config.retention);
  // Without DATABASE_URL the service runs on PGlite (see databaseTarget in @meridian/runtime).
  const backfill = startCombinedBackfill(deps.db, deps.logger, {
    singleConnection: !deps.config.DATABASE_URL,
  });
  if (deps.live) return [purge.stop, backfill.stop, startLive(deps, deps.live)];
  if (deps.config.INGEST_MODE === 'off') return [purge.stop, backfill.stop];
  const replay = startMarketReplay(deps.ingestor, deps.logger);
  const spotAt = replayedSpotAt();
  let refresh: Periodic | undefined;
  // From the first load's collection on, a refresh that played compacts the heap if it is idle.
  let compaction: (() => boolean) | undefined;
  const afterPlays = () => void compaction?.();
  // The day-shifted recordings, then the fresh feeds' refresh, whose first run plays them.
  const feeds = startRecordedFeeds(deps, spotAt, { afterPlays })
    .then((started) => void (refresh = started))
    .catch((err: unknown) => deps.logger.error({ err }, 'recorded feeds could not be replayed'));
  // The first 48 h of bars and every recording played once: from then on no data is no data (404).
  const firstLoad = Promise.all([replay.settled(), feeds]).then(() => {
    deps.firstLoad.settle();
    deps.logger.info('replay first load done');
  });
  // The first load's garbage (parsed recordings, batches) would otherwise stay in the old generation;
  // each minute's plays leave theirs too, which V8 would keep resident at idle (docs/memory.md).
  void firstLoad.then(() => {
    collectGarbage();
    compaction = idleCompaction();
  });
  const stopFeeds = async () => {
    await feeds;
    await refresh?.stop();
  };
  return [purge.stop, backfill.stop, replay.stop, stopFeeds];
}

/** The live connectors: from the first poll of each (whatever came of it), no data is no data (404). */
function startLive(deps: DataDeps, live: LiveIngest): () => Promise<void> {
  live.start();
  void live.firstPolls().then(() => {
    deps.firstLoad.settle();
    deps.logger.info('live first polls done');
  });
  return live.stop;
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
      background: (deps) => [answerNotices(full(deps)), ...background(full(deps))],
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
