import { afterAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

// The server ending a session that is checked out of the pool, as a Postgres restart does to every
// session: the process lives on (no unhandled 'error' event), the transaction fails with an error
// that says the connection is gone (answered 503), and the next query gets a new connection.
describe('a pool whose checked-out connection the server ends', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => database?.drop());

  it('fails the transaction, not the process, and reconnects for the next query', async () => {
    database = await createTestDatabase('pool_restart');
    const { db, close } = openDatabase<Record<string, never>>(
      { kind: 'pg', url: database.url, poolSize: 1 },
      'public',
    );
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const failed = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          // The session is gone while the transaction holds it between two queries.
          await new Promise((r) => setTimeout(r, 300));
          await sql`select 1`.execute(trx);
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      // What isDependencyUnavailable (@meridian/contracts) reads as a database gone away: a 503.
      expect((failed as Error).message).toMatch(
        /^(Connection terminated|Client has encountered a connection error)/,
      );
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await close();
    }
  });
});
