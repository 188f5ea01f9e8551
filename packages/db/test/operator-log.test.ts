import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, type Kysely } from 'kysely';
import {
  insertOperatorAction,
  migrateToLatest,
  openDatabase,
  openPGlite,
  runCommand,
  verifyOperatorLog,
  withServiceDatabase,
  type Migrations,
  type OpenDatabase,
  type OperatorActionsTable,
} from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

interface LogDb {
  operator_actions: OperatorActionsTable;
}

/** The operator log as a service's migrations leave it: the table, the append-only trigger, the chain's columns. */
const migrations: Migrations = {
  '2026_12_02_0001_log': {
    up: async (db: Kysely<any>) => {
      await db.schema
        .createTable('operator_actions')
        .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('operator_account_id', 'uuid')
        .addColumn('operator_email', 'text')
        .addColumn('prev_hash', 'text')
        .addColumn('hash', 'text')
        .execute();
      await sql`
        create function log_svc.refuse_change() returns trigger language plpgsql as $$
        begin raise exception 'append-only'; end $$`.execute(db);
      await sql`
        create trigger operator_actions_append_only before update or delete on log_svc.operator_actions
        for each row execute function log_svc.refuse_change()`.execute(db);
    },
  },
};

const OPERATOR = { account_id: '00000000-0000-4000-8000-000000000001', email: 'ana@example.com' };
const action = (i: number) => ({
  at: new Date(Date.UTC(2026, 11, 2, 1, 0, i)),
  actor: `operator:${OPERATOR.email}`,
  action: 'credit.grant',
  target: `account:${i}`,
  reason: `reason ${i}\nwith a line break`,
  operator: OPERATOR,
});

/** The chain on one database: built under concurrent inserts, then an edit made with the trigger off. */
async function exercise(open: OpenDatabase<LogDb>): Promise<void> {
  await migrateToLatest(open.db, 'log_svc', migrations);
  expect(await verifyOperatorLog(open.db)).toEqual({ ok: true, rows: 0, head: null });
  await insertOperatorAction(open.db, action(0));
  await Promise.all([1, 2, 3, 4, 5, 6].map((i) => insertOperatorAction(open.db, action(i))));
  await open.db.transaction().execute((trx) => insertOperatorAction(trx, action(7)));
  const intact = await verifyOperatorLog(open.db);
  expect(intact).toMatchObject({ ok: true, rows: 8, head: expect.stringMatching(/^[0-9a-f]{64}$/) });
  const stored = await open.db.selectFrom('operator_actions').selectAll().orderBy('id').execute();
  expect(stored[3]).toMatchObject({ operator_email: OPERATOR.email, prev_hash: stored[2]!.hash });

  // The service's own role may turn the trigger off and rewrite a row: the check names the row.
  const edited = stored[4]!.id;
  await sql`alter table log_svc.operator_actions disable trigger operator_actions_append_only`.execute(
    open.db,
  );
  await sql`update log_svc.operator_actions set reason = 'nothing happened' where id = ${edited}`.execute(
    open.db,
  );
  expect(await verifyOperatorLog(open.db)).toMatchObject({
    ok: false,
    id: String(edited),
    why: 'its fields do not match its hash',
  });
  // A row removed breaks the next row's link.
  await sql`update log_svc.operator_actions set reason = ${stored[4]!.reason} where id = ${edited}`.execute(
    open.db,
  );
  await sql`delete from log_svc.operator_actions where id = ${stored[2]!.id}`.execute(open.db);
  expect(await verifyOperatorLog(open.db)).toMatchObject({ ok: false, id: String(stored[3]!.id) });
}

describe('the operator log is a hash chain', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase('operator_log');
  });
  afterAll(async () => testDb?.drop());

  it('holds under concurrent inserts and names an edited or removed row, on Postgres', async () => {
    const open = openDatabase<LogDb>({ kind: 'pg', url: testDb.url }, 'log_svc');
    try {
      await exercise(open);
    } finally {
      await open.close();
    }
  });

  it('does the same on PGlite', async () => {
    const pglite = await openPGlite();
    try {
      await exercise(openDatabase<LogDb>({ kind: 'pglite', pglite }, 'log_svc'));
    } finally {
      await pglite.close();
    }
  });
});

describe('a command pointed at no database', () => {
  it('says so in one line naming the directory, exit code 2, and creates nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-database-'));
    const err: string[] = [];
    try {
      const io = { env: { DATA_DIR: dir }, stdout: () => undefined, stderr: (s: string) => void err.push(s) };
      const code = await runCommand('x:admin', io, () =>
        withServiceDatabase(io.env, 'x', migrations, async () => 'ran'),
      );
      expect(code).toBe(2);
      expect(err.join('').trim().split('\n')).toEqual([
        `x:admin: no database: DATABASE_URL is unset and ${join(dir, 'pglite')} holds no embedded database (start the system there, or set DATA_DIR or DATABASE_URL)`,
      ]);
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync(join(dir, 'pglite'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
