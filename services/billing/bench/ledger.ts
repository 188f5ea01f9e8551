/**
 * The ledger's two figures, each against a named peer measured in the same run:
 *   spends per second (idempotency key, balance check, entry and balance row in one transaction),
 *     in process and over rpc.billing.credit.spend.v1 on NATS
 *       vs  a bare one-row INSERT transaction into a table of the same shape (what any ledger pays)
 *   GET /v1/credits latency for an account with a million ledger rows
 *       vs  the same request for an account with ten rows (the balance is one row, the page an index range)
 * Run: npx -y pnpm@10 bench billing
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createNatsBus, type Bus } from '@meridian/bus';
import { RPC } from '@meridian/contracts';
import { startServer } from '@meridian/http-kit';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest } from '@meridian/runtime/testing';
import type { BillingDeps } from '../src/deps.js';
import { post } from '../src/flows/post.js';
import { start } from '../src/main.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 16;
const MILLION = 1_000_000;

/** Runs `op` with `concurrency` workers for the bench's seconds; answers operations per second. */
async function rate(op: (i: number) => Promise<unknown>, concurrency = CONCURRENCY): Promise<number> {
  let done = 0;
  const started = Date.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) await op(done++);
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

async function latency(runs: number, op: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await op();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, p99: times[Math.floor(runs * 0.99)]! };
}

async function fillLedger(deps: BillingDeps, accountId: string, rows: number): Promise<void> {
  await sql`
    insert into billing.ledger_entries (account_id, created_at, delta_atomic, reason, ref, actor, idempotency_key)
    select ${accountId}::uuid, now() - make_interval(secs => ${rows} - n), 1000, 'admin_grant', null, 'operator:bench', 'fill:' || n
    from generate_series(1, ${rows}) as n`.execute(deps.db);
  await sql`insert into billing.balances (account_id, balance_atomic, updated_at) values (${accountId}::uuid, ${rows * 1000}, now())`.execute(
    deps.db,
  );
  await sql`analyze billing.ledger_entries`.execute(deps.db);
}

/** Spends a second: in process over 64 accounts and one, over NATS, against a bare insert. */
async function spendFigures(deps: BillingDeps, client: Bus): Promise<void> {
  await sql`create table billing.bare_entries (like billing.ledger_entries including defaults including identity)`.execute(
    deps.db,
  );
  const accounts = Array.from({ length: 64 }, () => randomUUID());
  for (const a of accounts)
    await post(deps, {
      account_id: a,
      reason: 'admin_grant',
      amount_atomic: 10 ** 12,
      ref: null,
      actor: 'operator:bench',
      idempotency_key: `seed:${a}`,
    });

  const bare = await rate((i) =>
    deps.db.transaction().execute((trx) =>
      trx
        .insertInto('bare_entries' as 'ledger_entries')
        .values({
          account_id: accounts[i % 64]!,
          created_at: new Date(),
          delta_atomic: -1,
          reason: 'report',
          ref: null,
          actor: 'service',
          idempotency_key: `bare:${i}`,
          order_id: null,
          tx_signature: null,
          corrects_id: null,
        })
        .execute(),
    ),
  );
  const inProcess = await rate((i) =>
    post(deps, {
      account_id: accounts[i % 64]!,
      reason: 'report',
      amount_atomic: 1,
      ref: null,
      actor: 'service',
      idempotency_key: `spend:${i}`,
    }),
  );
  const oneAccount = await rate((i) =>
    post(deps, {
      account_id: accounts[0]!,
      reason: 'report',
      amount_atomic: 1,
      ref: null,
      actor: 'service',
      idempotency_key: `one:${i}`,
    }),
  );
  const overNats = await rate((i) =>
    client.request(RPC.billingCreditSpend, {
      account_id: accounts[i % 64]!,
      order_id: `run-bench${String(i).padStart(6, '0')}`,
      item: 'run:audit_base',
    }),
  );
  console.log(
    `billing spends, ${CONCURRENCY} concurrent, ${SECONDS} s each (peer: bare one-row INSERT transaction, ${bare.toFixed(0)}/s)`,
  );
  console.log(
    `  spend, 64 accounts, in process     ${inProcess.toFixed(0).padStart(7)}/s   ${(inProcess / bare).toFixed(2)} x bare insert`,
  );
  console.log(
    `  spend, one account (row lock)      ${oneAccount.toFixed(0).padStart(7)}/s   ${(oneAccount / bare).toFixed(2)} x bare insert`,
  );
  console.log(
    `  spend over NATS request/reply      ${overNats.toFixed(0).padStart(7)}/s   ${(overNats / bare).toFixed(2)} x bare insert`,
  );
}

/** GET /v1/credits of an account with a million rows, against one with ten. */
async function creditsFigures(deps: BillingDeps, serverUrl: string): Promise<void> {
  const big = randomUUID();
  const small = randomUUID();
  const t0 = performance.now();
  await fillLedger(deps, big, MILLION);
  await fillLedger(deps, small, 10);
  const filled = (performance.now() - t0) / 1000;
  const headers = async (account: string) =>
    callerHeaders({ account_id: account, auth: 'session', session_id: randomUUID() });
  const read =
    (account: string, h: Record<string, string>, query = '') =>
    async () => {
      const res = await fetch(`${serverUrl}/v1/credits${query}`, { headers: h });
      if (res.status !== 200) throw new Error(`GET /v1/credits answered ${res.status}`);
      await res.arrayBuffer();
    };
  const [hBig, hSmall] = [await headers(big), await headers(small)];
  await latency(50, read(big, hBig));
  const peer = await latency(500, read(small, hSmall));
  const first = await latency(500, read(big, hBig));
  const deep = await latency(500, read(big, hBig, '?limit=100&before=500000'));
  console.log(
    `GET /v1/credits (a million rows filled in ${filled.toFixed(1)} s; peer: an account with 10 rows, median ${peer.median.toFixed(2)} ms)`,
  );
  console.log(
    `  1,000,000 rows, first page         median ${first.median.toFixed(2)} ms  p99 ${first.p99.toFixed(2)} ms   ${(first.median / peer.median).toFixed(2)} x peer`,
  );
  console.log(
    `  1,000,000 rows, limit 100 mid-way  median ${deep.median.toFixed(2)} ms  p99 ${deep.p99.toFixed(2)} ms   ${(deep.median / peer.median).toFixed(2)} x peer`,
  );
}

export async function run(): Promise<void> {
  const started = await startServiceForTest(start, 'billing_bench', {
    DATABASE_POOL_SIZE: String(CONCURRENCY + 4),
    LOG_LEVEL: 'silent',
  });
  const { service, ground } = started;
  const deps = service.deps as unknown as BillingDeps;
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'billing-bench',
    namespace: ground.namespace,
    logger: createLogger('bench', { level: 'silent' }),
  });
  const server = await startServer(service.app, { port: 0 });
  try {
    await spendFigures(deps, client);
    await creditsFigures(deps, server.url);
  } finally {
    await server.close();
    await client.close();
    await started.close();
  }
}
