/**
 * Sign-ins per second at the configured bcrypt cost, and session checks per second over the real
 * NATS request/reply, each against a named peer measured in the same run:
 *   sign-in (POST /auth/login over HTTP)  vs  bare bcrypt.compare at the same cost
 *   session check (rpc.identity.session.verify.v1 over NATS)  vs  a bare `select 1` round trip
 * Only request/reply is used, so the private namespace leaves nothing behind in JetStream.
 * Run: npx -y pnpm@10 bench identity
 */
import { randomBytes, randomUUID } from 'node:crypto';
import bcrypt from 'bcrypt';
import { sql } from 'kysely';
import { createNatsBus, type Bus } from '@meridian/bus';
import { RPC } from '@meridian/contracts';
import { migrateToLatest, openDatabase } from '@meridian/db';
import { startServer } from '@meridian/http-kit';
import { callerHeaders, testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startTestGround } from '@meridian/runtime/testing';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import type { IdentityDeps } from '../src/deps.js';
import { preHashPassword } from '../src/domain/password.js';
import { hashPassword } from '../src/flows/passwords.js';
import { identityParts } from '../src/main.js';
import { rpcHandlers } from '../src/rpc/verify.js';

const PASSWORD = 'violet-harbour-gramophone-47';

/** Runs `op` with `concurrency` workers for `ms`; answers operations per second. */
async function rate(op: () => Promise<unknown>, concurrency: number, ms: number): Promise<number> {
  let done = 0;
  const until = Date.now() + ms;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await op();
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

async function main(): Promise<void> {
  const ground = await startTestGround('identity_bench', 'silent');
  const { namespace } = ground;
  const config = parseConfig({
    PORT: '0',
    ...ground.env,
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });
  const logger = createLogger('identity', { level: 'silent' });
  const opened = openDatabase<Database>({ kind: 'pg', url: ground.databaseUrl, poolSize: 10 }, 'identity');
  await migrateToLatest(opened.db, 'identity', migrations);
  const bus: Bus = await createNatsBus({ url: TEST_NATS_URL, name: 'identity-bench', namespace, logger });
  const deps: IdentityDeps = {
    config,
    db: opened.db,
    bus,
    logger,
    metrics: createMetrics('identity', { defaultMetrics: false }),
    assertionKey: testAssertionKey,
    ...identityParts(config),
  };
  const subs = [];
  for (const { subject, handler } of rpcHandlers(deps))
    subs.push(await bus.serve(subject, 'identity', handler));
  const server = await startServer(createApp(deps), { port: 0 });
  try {
    const email = `bench@example.com`;
    const hash = await hashPassword(PASSWORD, config.BCRYPT_COST);
    await opened.db
      .insertInto('accounts')
      .values({ id: randomUUID(), email, password_hash: hash, email_confirmed_at: new Date() })
      .execute();
    const headers = { ...(await callerHeaders()), 'content-type': 'application/json' };
    const login = async () => {
      const res = await fetch(`${server.url}/auth/login`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`login answered ${res.status}`);
      return (await res.json()) as { data: { token: string } };
    };
    const token = (await login()).data.token;
    const cores = 2;
    const signIns = await rate(login, cores, 5000);
    const compares = await rate(() => bcrypt.compare(preHashPassword(PASSWORD), hash), cores, 5000);
    const check = async () => {
      const reply = await bus.request(RPC.identitySessionVerify, { token });
      if (!reply.ok) throw new Error('session check refused');
    };
    const checks = await rate(check, 32, 5000);
    const selects = await rate(() => sql`select 1`.execute(opened.db), 32, 5000);
    const line = (what: string, n: number, peer: string, p: number) =>
      console.log(
        `${what.padEnd(44)} ${n.toFixed(1).padStart(9)}/s   ${peer.padEnd(34)} ${p.toFixed(1).padStart(9)}/s   ratio ${(n / p).toFixed(2)}`,
      );
    console.log(
      `bcrypt cost ${config.BCRYPT_COST}; sign-ins with ${cores} workers, checks with 32 in flight`,
    );
    line('sign-in (POST /auth/login, HTTP)', signIns, 'peer: bcrypt.compare alone', compares);
    line('session check (RPC verify over NATS)', checks, 'peer: select 1 round trip (pg)', selects);
  } finally {
    await server.close();
    for (const s of subs) await s.close();
    await bus.close();
    await opened.close();
    await ground.close();
  }
}

/** Entry for `pnpm bench identity` (bench/run.ts). */
export const run = main;
