/**
 * pnpm requests:admin — the operators' interface to service requests (they start nothing: a
 * person reviews each one and dispatches any assessment offline, after authorization).
 *
 *   pnpm requests:admin list [--status open|reviewed|closed] [--limit 50]
 *   pnpm requests:admin mark --id <n> --status reviewed|closed|open --operator <email> [--note "called back"]
 *   pnpm requests:admin log-verify   (walks the operator log's hash chain; names the first broken row)
 *
 * It works through DATABASE_URL (or the embedded PGlite under DATA_DIR): whoever runs it is
 * authenticated by the database. A command that changes a row names its operator by email, which
 * identity resolves (rpc.identity.operator.resolve.v1, over the running system's bus) to an account
 * holding the operator role; the change and its operator_actions row are one transaction. Exit
 * code 0, or 2 with the reason.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createNatsBus, type Bus } from '@meridian/bus';
import { RPC, type OperatorResolveReply } from '@meridian/contracts';
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
import { listRequests } from '../src/db/repositories/service-requests.js';
import { markRequestByOperator } from '../src/flows/mark-request.js';

const STATUSES = ['open', 'reviewed', 'closed'] as const;

const listSchema = z.object({
  status: z.enum(STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
const markSchema = z.object({
  id: z.coerce.number().int().positive(),
  status: z.enum(STATUSES),
  operator: z.email('the email of an operator account'),
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

/** The operator an email names, as identity answers it; a refusal of one line otherwise. */
async function resolveOperator(bus: Bus, email: string): Promise<OperatorResolveReply> {
  const reply = await bus.request<OperatorResolveReply>(RPC.identityOperatorResolve, { email });
  if (reply.ok) return reply.data;
  const { status, detail } = reply.problem;
  if (status === 403) throw new CommandRefused(`${email} is not an operator`);
  if (status === 404) throw new CommandRefused(`no account has the email ${email}`);
  throw new CommandRefused(`identity could not check the operator ${email}: ${detail}`);
}

/** What a command needs besides the database: the bus on which identity names the operator. */
export interface AdminParts {
  bus: () => Promise<Bus>;
}

/** Runs one command; answers the text to print. */
export async function run(db: Kysely<Database>, argv: string[], parts: AdminParts): Promise<string> {
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
    const who = await resolveOperator(await parts.bus(), operator);
    const marked = await markRequestByOperator({ db }, who.account_id, { id, status, note: note ?? null });
    if (!marked.ok) throw new CommandRefused(`no request #${id}`);
    return `#${id} marked ${status} by ${operator}`;
  }
  if (positionals[0] === 'log-verify') return operatorLogCheckLine(db);
  throw new CommandRefused('the command is list, mark or log-verify');
}

/**
 * The bus of the running system: the one `pnpm start` lends a command it runs, else NATS at
 * NATS_URL (BUS_NAMESPACE as the services use it). Opened only by a command that needs it.
 */
function busOf(env: NodeJS.ProcessEnv, lent: Bus | undefined, opened: Bus[]): () => Promise<Bus> {
  return async () => {
    if (lent) return lent;
    if (!env.NATS_URL)
      throw new CommandRefused(
        'the operator is checked by identity over the bus: set NATS_URL, or run the command while pnpm start runs',
      );
    const bus = await createNatsBus({
      url: env.NATS_URL,
      name: 'requests-admin',
      namespace: env.BUS_NAMESPACE,
    });
    opened.push(bus);
    return bus;
  };
}

/** The command line: opens the database, runs; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo, lentBus?: Bus): Promise<number> {
  const opened: Bus[] = [];
  try {
    return await runCommand('requests:admin', io, () =>
      withServiceDatabase<Database, string>(io.env, 'requests', migrations, (db) =>
        run(db, argv, { bus: busOf(io.env, lentBus, opened) }),
      ),
    );
  } finally {
    for (const bus of opened) await bus.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await runOrForward('requests:admin', process.argv.slice(2), main);
