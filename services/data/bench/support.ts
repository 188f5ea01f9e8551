/** The data service's bench database and deps: a fresh migrated database and an in-memory bus. */
import { createMemoryBus } from '@meridian/bus';
import { migrateToLatest, openDatabase, type OpenDatabase } from '@meridian/db';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { TEST_INTERNAL_AUTH_SECRET, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import type { DataDeps } from '../src/deps.js';
import { parseConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { dataDeps } from '../src/main.js';

export interface BenchDb extends OpenDatabase<Database> {
  test: TestDatabase;
}

/** A fresh database on the machine's Postgres (TEST_POSTGRES_URL), migrated, dropped by `drop`. */
export async function benchDatabase(prefix: string): Promise<BenchDb> {
  const test = await createTestDatabase(prefix);
  const open = openDatabase<Database>({ kind: 'pg', url: test.url, poolSize: 8 }, 'data');
  await migrateToLatest(open.db, 'data', migrations);
  return { ...open, test };
}

export async function dropBench(db: BenchDb): Promise<void> {
  await db.close();
  await db.test.drop();
}

export function benchDeps(db: BenchDb, env: Record<string, string> = {}): DataDeps {
  const logger = createLogger('bench', { level: 'silent' });
  return dataDeps({
    config: parseConfig({
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      DATABASE_URL: db.test.url,
      INGEST_MODE: 'off',
      ...env,
    }),
    db: db.db,
    bus: createMemoryBus({ name: 'bench', logger }),
    logger,
    metrics: createMetrics('data', { defaultMetrics: false }),
    assertionKey: testAssertionKey,
  });
}
