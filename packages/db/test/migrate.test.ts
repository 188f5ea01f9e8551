import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, type Generated, type Kysely } from 'kysely';
import {
  migrateToLatest,
  openDatabase,
  openPGlite,
  type Migrations,
  type OpenDatabase,
} from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

interface LedgerDb {
  ledger: { id: Generated<number>; amount_atomic: number; note: string | null };
}

const migrations: Migrations = {
  '2026_11_21_0001_ledger': {
    up: async (db: Kysely<any>) => {
      await db.schema
        .createTable('ledger')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('amount_atomic', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '2026_11_21_0002_note': {
    up: async (db: Kysely<any>) => {
      await db.schema.alterTable('ledger').addColumn('note', 'text').execute();
    },
  },
};

/** The same migrations and queries must behave the same on the real server and on PGlite. */
async function exercise(open: OpenDatabase<LedgerDb>): Promise<void> {
  const first = await migrateToLatest(open.db, 'ledger_svc', migrations);
  expect(first.results?.map((r) => r.status)).toEqual(['Success', 'Success']);
  const second = await migrateToLatest(open.db, 'ledger_svc', migrations);
  expect(second.results).toEqual([]);

  const big = 9_000_000_000_000; // past 2^32: must come back as an exact integer
  await open.db.insertInto('ledger').values({ amount_atomic: big, note: 'x' }).execute();
  const rows = await open.db.selectFrom('ledger').select(['id', 'amount_atomic', 'note']).execute();
  expect(rows).toEqual([{ id: 1, amount_atomic: big, note: 'x' }]);

  const applied = await sql<{
    name: string;
  }>`select name from ledger_svc.kysely_migration order by name`.execute(open.db);
  expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations));
  const huge = await sql<{ n: unknown }>`select ${sql.lit('9223372036854775807')}::bigint as n`.execute(
    open.db,
  );
  expect(huge.rows[0]?.n).toBe(9223372036854775807n);
}

describe('migrations run the same on pg and PGlite', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase('db_migrate');
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it('on the real Postgres server', async () => {
    const open = openDatabase<LedgerDb>({ kind: 'pg', url: testDb.url }, 'ledger_svc');
    try {
      await exercise(open);
    } finally {
      await open.close();
    }
  });

  it('on embedded PGlite', async () => {
    const pglite = await openPGlite();
    try {
      await exercise(openDatabase<LedgerDb>({ kind: 'pglite', pglite }, 'ledger_svc'));
    } finally {
      await pglite.close();
    }
  });
});
