/**
 * pnpm identity:admin — the operators' interface to the operator role.
 *
 *   pnpm identity:admin grant-operator  <email> --bootstrap --reason "first operator"   (only while none exists)
 *   pnpm identity:admin grant-operator  <email> --operator ana@example.com --reason "joins the review desk"
 *   pnpm identity:admin revoke-operator <email> --operator ana@example.com --reason "left the team"
 *   pnpm identity:admin operators
 *   pnpm identity:admin log [--limit 50] [--verify]
 *
 * It writes with the database credentials of DATABASE_URL (or the embedded PGlite under DATA_DIR,
 * through the running `pnpm start` when it holds it): whoever runs it is authenticated by the
 * database, and every change is logged in the operator log under `--operator`, an account checked
 * to hold the role. `log --verify` walks the log's hash chain and names the first broken row.
 * Exit code 0, or 2 with the reason on stderr when refused.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  CommandRefused,
  processIo,
  runCommand,
  runOrForward,
  operatorLogCheckLine,
  withServiceDatabase,
  type CommandIo,
} from '@meridian/db';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { listOperatorActions, listOperators } from '../src/db/repositories/operators.js';
import { changeOperatorRole } from '../src/flows/operator-role.js';

const COMMANDS = ['grant-operator', 'revoke-operator', 'operators', 'log'] as const;
type Command = (typeof COMMANDS)[number];

const changeSchema = z.object({
  email: z.email().max(254),
  operator: z.email('the email of an operator').max(254).optional(),
  bootstrap: z.boolean().optional(),
  reason: z.string().trim().min(1).max(500),
});
const logSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  verify: z.boolean().optional(),
});

function parsed<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const result = schema.safeParse(values);
  if (!result.success)
    throw new CommandRefused(
      result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return result.data;
}

async function change(db: Kysely<Database>, command: Command, values: unknown): Promise<string> {
  const args = parsed(changeSchema, values);
  const grant = command === 'grant-operator';
  if (!args.operator === !args.bootstrap)
    throw new CommandRefused(
      'name the operator who runs it (--operator <email>), or --bootstrap for the first one',
    );
  const by = args.operator ? { operator_email: args.operator } : { bootstrap: true as const };
  const changed = await changeOperatorRole(db, { email: args.email, grant, by, reason: args.reason });
  if (!changed.ok) throw new CommandRefused(changed.detail);
  const { account_id, totp_active } = changed.value;
  const what = grant ? 'granted' : 'revoked';
  const line = `${changed.value.changed ? what : `already ${what}`}: operator role of account ${account_id}`;
  return grant && !totp_active ? `${line} (TOTP is not active: operator routes refuse it until it is)` : line;
}

async function log(db: Kysely<Database>, args: z.infer<typeof logSchema>): Promise<string> {
  if (!args.verify)
    return (await listOperatorActions(db, args.limit))
      .map((a) => `${a.at.toISOString()} ${a.actor} ${a.action} ${a.target} ${JSON.stringify(a.reason)}`)
      .join('\n');
  return operatorLogCheckLine(db);
}

/** Runs one command; answers the text to print. */
export async function run(db: Kysely<Database>, argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      operator: { type: 'string' },
      bootstrap: { type: 'boolean' },
      reason: { type: 'string' },
      limit: { type: 'string' },
      verify: { type: 'boolean' },
    },
  });
  const command = positionals[0] as Command;
  if (!COMMANDS.includes(command)) throw new CommandRefused(`the command is one of ${COMMANDS.join(', ')}`);
  if (command === 'operators')
    return (await listOperators(db))
      .map(
        (o) => `${o.account_id} ${o.email ?? '-'} totp:${o.totp_state} since ${o.granted_at.toISOString()}`,
      )
      .join('\n');
  if (command === 'log') return log(db, parsed(logSchema, values));
  return change(db, command, { ...values, email: positionals[1] });
}

/** The command line: parses, opens the database, runs; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('identity:admin', io, () =>
    withServiceDatabase<Database, string>(io.env, 'identity', migrations, (db) => run(db, argv)),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await runOrForward('identity:admin', process.argv.slice(2), main);
