/**
 * pnpm billing:admin — the operators' interface to the credit ledger.
 *
 *   pnpm billing:admin grant   --operator ana@example.com --account <id> --amount <atomic> --note "goodwill" [--key <idempotency key>]
 *   pnpm billing:admin revoke  --operator ana@example.com --account <id> --amount <atomic> --note "chargeback" [--key ...]
 *   pnpm billing:admin topup   --operator ana@example.com --account <id> --amount <atomic> --note "wire 2026-11-20" [--key ...]
 *   pnpm billing:admin refund  --operator ana@example.com --account <id> --order <order id> [--amount <atomic>] [--key ...]
 *   pnpm billing:admin balance --account <id>
 *   pnpm billing:admin unmatched [--limit 50]
 *   pnpm billing:admin log-verify     (walks the operator log's hash chain; names the first broken row)
 *
 * It writes with the database credentials of DATABASE_URL (or the embedded PGlite under DATA_DIR).
 * A command that changes money names its operator by email; identity checks the operator role
 * (rpc.identity.operator.resolve.v1, over NATS_URL or the running system's own bus), the account
 * must exist, and the change and its operator log row are written in one transaction. Without
 * --key each command makes a key of its own arguments, so running the same line twice posts once.
 * Exit code 0, or 2 with the reason on stderr when refused.
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createNatsBus, type Bus } from '@meridian/bus';
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
import { unmatchedDeposits } from '../src/db/repositories/deposits.js';
import { readBalance } from '../src/db/repositories/ledger.js';
import { lentBus } from '../src/deps.js';
import { postByOperator, refundByOperator } from '../src/flows/operator-actions.js';
import { operatorByEmail, type CheckedOperator } from '../src/flows/operator-by-email.js';

const COMMANDS = ['grant', 'revoke', 'topup', 'refund', 'balance', 'unmatched', 'log-verify'] as const;
type Command = (typeof COMMANDS)[number];
const FLAGS = ['operator', 'account', 'amount', 'order', 'note', 'key', 'limit'] as const;

const argsSchema = z.object({
  operator: z.email('the email of an operator account').optional(),
  account: z.uuid().optional(),
  amount: z.coerce.number().int().positive().optional(),
  order: z.string().min(1).max(100).optional(),
  note: z.string().min(1).max(500).optional(),
  key: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
type Args = z.infer<typeof argsSchema>;

function need<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new CommandRefused(`--${flag} is required`);
  return value;
}

function parse(argv: string[]): { command: Command; args: Args } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(FLAGS.map((flag) => [flag, { type: 'string' as const }])),
  });
  const command = positionals[0] as Command;
  if (!COMMANDS.includes(command)) throw new CommandRefused(`the command is one of ${COMMANDS.join(', ')}`);
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success)
    throw new CommandRefused(
      parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return { command, args: parsed.data };
}

const keyOf = (parts: unknown[]) =>
  `admin:${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)}`;

type Money = { db: Kysely<Database>; bus: Bus; operator: CheckedOperator };

async function refund({ db, bus, operator }: Money, args: Args): Promise<string> {
  const account = need(args.account, 'account');
  const order = need(args.order, 'order');
  const refunded = await refundByOperator({ db, bus }, operator, {
    account_id: account,
    order_id: order,
    reason: args.note ?? `refund of ${order} by billing:admin`,
    key: args.key ?? keyOf(['refund', account, order, args.amount ?? null]),
    ...(args.amount ? { amount_atomic: args.amount } : {}),
  });
  if (!refunded.ok) throw new CommandRefused(refunded.detail);
  const { replayed, amount_atomic, balance_atomic } = refunded.value;
  return `${replayed ? 'already refunded' : 'refunded'} ${amount_atomic}; balance ${balance_atomic}`;
}

async function postCredit(
  { db, bus, operator }: Money,
  command: 'grant' | 'revoke' | 'topup',
  args: Args,
): Promise<string> {
  const account = need(args.account, 'account');
  const amount = need(args.amount, 'amount');
  const note = need(args.note, 'note');
  const posted = await postByOperator({ db, bus }, operator, {
    kind: command,
    account_id: account,
    amount_atomic: amount,
    reason: note,
    key: args.key ?? keyOf([command, account, amount, note]),
  });
  if (!posted.ok) throw new CommandRefused(posted.detail);
  const { entry, balance_atomic, replayed } = posted.value;
  return `${replayed ? 'already posted' : 'posted'} entry ${entry.id} (${entry.reason} ${entry.delta_atomic}); balance ${balance_atomic}`;
}

/**
 * The bus to ask identity on: NATS_URL's, or that of the running system this command is run by
 * (its in-process bus); none is a refusal, as the operator cannot be checked.
 */
async function withBus<T>(env: NodeJS.ProcessEnv, work: (bus: Bus) => Promise<T>): Promise<T> {
  if (!env.NATS_URL) {
    const lent = lentBus();
    if (!lent)
      throw new CommandRefused(
        'the operator cannot be checked without identity: set NATS_URL, or run it while pnpm start runs',
      );
    return work(lent);
  }
  const namespace = env.BUS_NAMESPACE || undefined;
  const bus = await createNatsBus({
    url: env.NATS_URL,
    name: 'billing-admin',
    ...(namespace ? { namespace } : {}),
  });
  try {
    return await work(bus);
  } finally {
    await bus.close();
  }
}

/** Runs one command; answers the text to print. */
export async function run(
  db: Kysely<Database>,
  command: Command,
  args: Args,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  switch (command) {
    case 'balance':
      return `${await readBalance(db, need(args.account, 'account'))}`;
    case 'log-verify':
      return operatorLogCheckLine(db);
    case 'unmatched':
      return (await unmatchedDeposits(db, args.limit))
        .map(
          (d) =>
            `${d.recorded_at.toISOString()} ${d.tx_signature} ${d.amount_atomic} ${JSON.stringify(d.memo)}`,
        )
        .join('\n');
    case 'refund':
    case 'grant':
    case 'revoke':
    case 'topup': {
      const email = need(args.operator, 'operator');
      return withBus(env, async (bus) => {
        const operator = await operatorByEmail({ bus }, email);
        if (!operator.ok) throw new CommandRefused(operator.detail);
        const money = { db, bus, operator: operator.value };
        return command === 'refund' ? refund(money, args) : postCredit(money, command, args);
      });
    }
  }
}

/** The command line: parses, opens the database, runs; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('billing:admin', io, async () => {
    const { command, args } = parse(argv);
    return withServiceDatabase<Database, string>(io.env, 'billing', migrations, (db) =>
      run(db, command, args, io.env),
    );
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await runOrForward('billing:admin', process.argv.slice(2), main);
