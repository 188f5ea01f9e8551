import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { openDatabase, type DatabaseTarget } from './database.js';
import { migrateToLatest, type Migrations } from './migrate.js';
import { forwardCommand, heldPGlite, type CommandIo, type CommandMain } from './command-socket.js';
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
  const dir = join(env.DATA_DIR ?? '.data', 'pglite');
  // A command served by the process that holds the embedded database runs on its open instance.
  const lent = env.DATABASE_URL ? undefined : heldPGlite(dir);
  const target: DatabaseTarget = env.DATABASE_URL
    ? { kind: 'pg', url: env.DATABASE_URL }
    : { kind: 'pglite', pglite: lent ?? (await openEmbedded(dir)) };
  const database = openDatabase<DB>(target, schema);
  try {
    await migrateToLatest(database.db, schema, migrations);
    return await work(database.db);
  } finally {
    await database.close();
    if (target.kind === 'pglite' && !lent) await target.pglite.close();
  }
}

/** The embedded database for a command; one that cannot be opened (held, damaged) is a refusal of one line. */
async function openEmbedded(dir: string) {
  // A command pointed at no database says so: opening would create an empty one in its place.
  if (!existsSync(join(dir, 'PG_VERSION')))
    throw new CommandRefused(
      `no database: DATABASE_URL is unset and ${resolve(dir)} holds no embedded database (start the system there, or set DATA_DIR or DATABASE_URL)`,
    );
  try {
    return await openPGlite(dir);
  } catch (err) {
    throw new CommandRefused(err instanceof Error ? err.message : String(err));
  }
}

/**
 * A command line's entry: with the embedded database (no DATABASE_URL) held by a running
 * `pnpm start` on the same DATA_DIR, the command is run by that process, the one writer, and its
 * answer printed here; otherwise `main` runs here. The exit code.
 */
export async function runOrForward(
  label: string,
  argv: string[],
  main: CommandMain,
  io: CommandIo = processIo,
): Promise<number> {
  if (!io.env.DATABASE_URL) {
    const served = await forwardCommand(io.env.DATA_DIR ?? '.data', label, argv);
    if (served) {
      io.stdout(served.stdout);
      io.stderr(served.stderr);
      return served.code;
    }
  }
  return main(argv, io);
}

/** A refusal the person at the command line can act on: printed as is, exit code 2. */
export class CommandRefused extends Error {}

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
