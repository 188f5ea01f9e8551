import { createMemoryBus } from '@meridian/bus';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createApp, type Deps } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { replayedSpotAt, startMarketReplay } from '../../src/jobs/spot/market-replay.js';
import { loadRecordedFeeds } from '../../src/jobs/feeds/recorded-feeds.js';
import { dataDeps } from '../../src/main.js';
import type { MigratedDatabase } from './db.js';

/**
 * The data service's app over a migrated test database, replay off: the test ingests what it needs.
 * `now`: the clock its routes answer at (the wall clock unless a test reads at instants of its own).
 */
export function testDeps(
  db: MigratedDatabase,
  env: Record<string, string> = {},
  now: () => number = Date.now,
): Deps {
  const logger = createLogger('data-test', { level: 'silent' });
  return dataDeps(
    {
      config: parseConfig({
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        DATABASE_URL: db.url,
        INGEST_MODE: 'off',
        ...env,
      }),
      db: db.db,
      bus: createMemoryBus({ name: 'data-test', logger }),
      logger,
      metrics: createMetrics('data', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
    },
    now,
  );
}

export function testApp(deps: Deps) {
  return createApp(deps);
}

/** What main.ts starts under replay at the deps' clock: the market replay run through once, then every recording played. */
export async function playRecordings(deps: Deps): Promise<void> {
  const replay = startMarketReplay(deps.ingestor, createLogger('replay-test', { level: 'silent' }), deps.now);
  await replay.settled();
  await replay.stop();
  await loadRecordedFeeds(deps, new Date(deps.now()), replayedSpotAt());
  deps.firstLoad.settle();
}
