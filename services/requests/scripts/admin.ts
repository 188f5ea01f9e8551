/**
 * pnpm requests:admin — the operators' interface to service requests (they start nothing: a
 * person reviews each one and dispatches any assessment offline, after authorization).
 *
 *   pnpm requests:admin list [--status open|reviewed|closed] [--limit 50]
 *   pnpm requests:admin mark --id <n> --status reviewed|closed|open --operator ana [--note "called back"]
 *
 * It works through DATABASE_URL (or the embedded PGlite under DATA_DIR): whoever runs it is
 * authenticated by the database, and a mark names its operator. Exit code 0, or 2 with the reason.
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
  withServiceDatabase,
  type CommandIo,
} from '@meridian/db';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { listRequests, markRequest } from '../src/db/repositories/service-requests.js';

const STATUSES = ['open', 'reviewed', 'closed'] as const;

const listSchema = z.object({
  status: z.enum(STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
const markSchema = z.object({
  id: z.coerce.number().int().positive(),
  status: z.enum(STATUSES),
  operator: z.string().regex(/^[a-z0-9._-]{2,40}$/i, 'a short operator name'),
  note: z.string().min(1).max(2000).optional(),
});

function parsed<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const result = schema.safeParse(values);
  if (!result.success)
    throw new CommandRefused(
      result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return result.data;
}

/** Runs one command; answers the text to print. */
export async function run(db: Kysely<Database>, argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(
      ['status', 'limit', 'id', 'operator', 'note'].map((f) => [f, { type: 'string' as const }]),
    ),
  });
  if (positionals[0] === 'list') {
    const { status, limit } = parsed(listSchema, values);
    return (await listRequests(db, { status }, limit))
      .map(
        (r) =>
          `#${r.id} ${r.status} ${r.kind} ${r.domain || '-'} x${r.count} account ${r.account_id} last ${r.last_at.toISOString()}${r.detail ? ` ${JSON.stringify(r.detail)}` : ''}`,
      )
      .join('\n');
  }
  if (positionals[0] === 'mark') {
    const { id, status, operator, note } = parsed(markSchema, values);
    if (
      !(await markRequest(
        db,
        id,
        { status, operator_note: note ?? null, reviewed_by: `operator:${operator}` },
        new Date(),
      ))
    )
      throw new CommandRefused(`no request #${id}`);
    return `#${id} marked ${status}`;
  }
  throw new CommandRefused('the command is list or mark');
}

/** The command line: opens the database, runs; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('requests:admin', io, () =>
    withServiceDatabase<Database, string>(io.env, 'requests', migrations, (db) => run(db, argv)),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await runOrForward('requests:admin', process.argv.slice(2), main);
