import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { openDatabase, type DatabaseTarget } from './database.js';
import { migrateToLatest, type Migrations } from './migrate.js';
import { openPGlite } from './pglite.js';

/**
 * The database of a one-shot command (an operator's script, an import): `DATABASE_URL`, else the
 * embedded PGlite that `pnpm start` keeps under `DATA_DIR`; brought to the latest migration of
 * `schema`, handed to `work`, and closed whatever `work` does.
 */
export async function withServiceDatabase<DB, T>(
  env: { DATABASE_URL?: string | undefined; DATA_DIR?: string | undefined },
  schema: string,
  migrations: Migrations,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  const target: DatabaseTarget = env.DATABASE_URL
    ? { kind: 'pg', url: env.DATABASE_URL }
    : { kind: 'pglite', pglite: await openPGlite(join(env.DATA_DIR ?? '.data', 'pglite')) };
  const database = openDatabase<DB>(target, schema);
  try {
    await migrateToLatest(database.db, schema, migrations);
    return await work(database.db);
  } finally {
    await database.close();
    if (target.kind === 'pglite') await target.pglite.close();
  }
}
