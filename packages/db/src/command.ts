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

/** A refusal the person at the command line can act on: printed as is, exit code 2. */
export class CommandRefused extends Error {}

/** Where a command reads its settings and writes its answer (tests pass their own). */
export interface CommandIo {
  env: NodeJS.ProcessEnv;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export const processIo: CommandIo = {
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

const isArgumentError = (err: unknown): boolean =>
  String((err as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');

/**
 * Runs a command line's work and prints its answer: exit code 0; a refusal (CommandRefused, or an
 * argument node's parseArgs does not know) is printed under `label`, exit code 2.
 */
export async function runCommand(label: string, io: CommandIo, work: () => Promise<string>): Promise<number> {
  try {
    io.stdout(`${await work()}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof CommandRefused) && !isArgumentError(err)) throw err;
    io.stderr(`${label}: ${(err as Error).message}\n`);
    return 2;
  }
}
