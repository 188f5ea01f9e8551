import { catalogFor } from '@meridian/contracts';
import { expect } from '@jest/globals';
import type request from 'supertest';
import { createMemoryBus } from '@meridian/bus';
import { callerHeaders, TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { createApp, type Deps } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { dataDeps } from '../../src/main.js';
import { ingest } from '../../src/flows/ingest.js';
import { loadRecordedFeeds } from '../../src/jobs/feeds/recorded-feeds.js';
import { migratedDatabase, type MigratedDatabase } from './db.js';

/**
 * The data service answering the feed metrics from the recordings replayed by loadRecordedFeeds into
 * a fresh Postgres database, as the feeds-http*.test.ts files read it.
 */

/**
 * The one instant of the tests, the service's clock too: the replayed scoreboards then hold games of
 * every state (NBA in progress since 01:00, a usa.1 game scheduled for 23:00: docs/replay.md).
 */
export const loadedAt = new Date('2026-12-14T18:00:30Z');

/** The service at loadedAt over a new database holding every recording, and an ultra caller's headers. */
export async function recordedFeedsService(prefix: string) {
  const db = await migratedDatabase(prefix);
  const config = parseConfig({
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
    DATABASE_URL: db.url,
    INGEST_MODE: 'off',
  });
  const deps: Deps = dataDeps(
    {
      config,
      db: db.db,
      bus: createMemoryBus(),
      logger: createLogger('data-test', { level: 'silent' }),
      metrics: createMetrics('data_test', { defaultMetrics: false }),
      assertionKey: testAssertionKey,
    },
    () => loadedAt.getTime(),
  );
  await loadRecordedFeeds(deps, loadedAt);
  await spotQuotes(db, loadedAt);
  const app = createApp(deps);
  const headers = await callerHeaders({
    plan: 'ultra',
    auth: 'api_key',
    account_id: 'acct_feeds',
    key_id: 'key_feeds',
  });
  return { db, app, headers, deps };
}

/** The body of a 200 answer, checked to say it is a replay of a recording with its staleness and confidence. */
export async function replayedOk(get: (path: string) => request.Test, path: string) {
  const res = await get(path);
  expect({ path, status: res.status, body: res.status === 200 ? null : res.body }).toMatchObject({
    path,
    status: 200,
    body: null,
  });
  expect(res.body.provenance.method).toMatch(/replay of the recording services\/data\/recordings\//);
  expect(res.body.provenance.method).toMatch(/not a live print/);
  expect(res.body.meta.staleness_ms).toBeGreaterThanOrEqual(0);
  expect(res.body.meta.confidence).toBeGreaterThanOrEqual(0);
  expect(res.body.meta.confidence).toBeLessThanOrEqual(1);
  expect(res.body.provenance.sources.length).toBeGreaterThan(0);
  return res.body;
}

/** Spot closes of Binance.US one minute before now, so that the spot series answer beside the feeds. */
const SPOT = { usd: 28194.93, usdt: 28110.26 };

async function spotQuotes(db: MigratedDatabase, now: Date): Promise<void> {
  const ts = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - 60_000).toISOString();
  for (const [symbol, close] of [
    ['BTC-USD', SPOT.usd],
    ['BTC-USDT', SPOT.usdt],
  ] as const)
    await ingest(
      db.db,
      {
        kind: 'candles',
        source: 'binanceus',
        symbol,
        interval: '1m',
        rows: [{ ts, open: close, high: close, low: close, close, volume: 10, trade_count: 5 }],
      },
      catalogFor('replay'),
    );
}
