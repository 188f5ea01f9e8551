import { migrateToLatest, openDatabase, type OpenDatabase } from '@meridian/db';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import type { Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';

export interface MigratedDatabase extends OpenDatabase<Database> {
  url: string;
  drop(): Promise<void>;
}

/** A fresh Postgres database with the `data` schema migrated, for one test file. */
export async function migratedDatabase(prefix: string): Promise<MigratedDatabase> {
  const test: TestDatabase = await createTestDatabase(prefix);
  const open = openDatabase<Database>({ kind: 'pg', url: test.url, poolSize: 4 }, 'data');
  await migrateToLatest(open.db, 'data', migrations);
  return {
    ...open,
    url: test.url,
    drop: async () => {
      await open.close();
      await test.drop();
    },
  };
}
