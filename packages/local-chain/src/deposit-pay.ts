/**
 * `pnpm deposit:pay --memo <memo> --usd <amount>`: pays a deposit on the local chain of a running
 * `pnpm start`, as `x402:pay` pays a call. The memo says what it pays: `top-<account_id>` adds
 * credit, a run's or a booking's id pays that order. A new wallet funded by the local chain pays
 * the deployment's deposit address; the deposit watcher credits it within seconds.
 *
 * Where: `DATA_DIR/local-chain.json`, written by `pnpm start` (DATA_DIR default `.data`);
 * `X402_FACILITATOR_URL` and `DEPOSIT_ADDRESS` override it. `--atomic <n>` instead of `--usd`.
 * Exit code 0 when paid, 2 with one line when refused, 1 when the chain failed.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { payLocalDeposit, readLocalChain } from './local-deposit.js';

class Refused extends Error {}

/** Dollars with up to six decimals, as atomic units: read as text, never through a float. */
const usd = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, 'dollars with up to 6 decimals, e.g. 25 or 0.5')
  .transform((text) => {
    const [whole, fraction = ''] = text.split('.');
    return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  });
const argsSchema = z
  .object({
    memo: z.string().min(1).max(200),
    usd: usd.optional(),
    atomic: z
      .string()
      .regex(/^\d{1,15}$/, 'a whole number of atomic units')
      .transform(BigInt)
      .optional(),
  })
  .superRefine((a, ctx) => {
    const amount = a.usd ?? a.atomic;
    if ((a.usd === undefined) === (a.atomic === undefined))
      ctx.addIssue({ code: 'custom', message: 'give one of --usd or --atomic' });
    else if (amount !== undefined && amount <= 0n)
      ctx.addIssue({ code: 'custom', message: 'the amount must be above 0' });
  });

function parse(argv: string[]) {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: argv,
      options: { memo: { type: 'string' }, usd: { type: 'string' }, atomic: { type: 'string' } },
    }).values;
  } catch (err) {
    throw new Refused((err as Error).message);
  }
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success)
    throw new Refused(
      parsed.error.issues.map((i) => (i.path.length ? `--${i.path.join('.')}: ` : '') + i.message).join('; '),
    );
  return { memo: parsed.data.memo, amountAtomic: parsed.data.usd ?? parsed.data.atomic! };
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { memo, amountAtomic } = parse(argv);
  const dataDir = env.DATA_DIR ?? '.data';
  const chain = readLocalChain(dataDir);
  const facilitatorUrl = env.X402_FACILITATOR_URL ?? chain?.facilitator_url;
  const to = env.DEPOSIT_ADDRESS ?? chain?.deposit_address;
  if (!facilitatorUrl || !to)
    throw new Refused(
      `no local chain is known in ${join(dataDir, 'local-chain.json')}: start the system with npx -y pnpm@10 start (same DATA_DIR)`,
    );
  const paid = await payLocalDeposit({ facilitatorUrl, to, memo, amountAtomic });
  return JSON.stringify(
    { ...paid, to, memo, amount_atomic: amountAtomic.toString(), network: chain?.network },
    null,
    2,
  );
}

main(process.argv.slice(2), process.env).then(
  (text) => {
    process.stdout.write(`${text}\n`);
    process.exit(0);
  },
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`deposit:pay: ${message}\n`);
    process.exit(err instanceof Refused ? 2 : 1);
  },
);
