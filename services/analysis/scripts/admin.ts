/**
 * pnpm analysis:admin: the operators' command over the analysis service's own log. Reviews are
 * recorded in the console (POST /v1/operator/reviews), each with its operator_actions row in the
 * same transaction; this checks that log as the other services' commands check theirs.
 *
 *   pnpm analysis:admin log-verify   (walks the operator log's hash chain; names the first broken row)
 *
 * It works through DATABASE_URL (or the embedded PGlite under DATA_DIR, through the running
 * system's command socket). Exit code 0, or 2 with the reason.
 */
import { pathToFileURL } from 'node:url';
import type { Kysely } from 'kysely';
import {
  CommandRefused,
  operatorLogCheckLine,
  processIo,
  runCommand,
  runOrForward,
  withServiceDatabase,
  type CommandIo,
} from '@meridian/db';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';

/** Runs one command; answers the text to print. */
export async function run(db: Kysely<Database>, argv: string[]): Promise<string> {
  if (argv.length === 1 && argv[0] === 'log-verify') return operatorLogCheckLine(db);
  throw new CommandRefused('the command is log-verify');
}

/** The command line: opens the database, runs; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('analysis:admin', io, () =>
    withServiceDatabase<Database, string>(io.env, 'analysis', migrations, (db) => run(db, argv)),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await runOrForward('analysis:admin', process.argv.slice(2), main);
