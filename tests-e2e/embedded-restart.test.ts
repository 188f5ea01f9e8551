import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DURABLES, EVENTS } from '@meridian/contracts';
import { openPGlite } from '@meridian/db';
import { startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { grantCredit, operatorOf, postJson, signedInAccount } from './src/accounts.js';
import type { System } from './src/system.js';

/**
 * The all-in-one process (`pnpm start`) in embedded mode (PGlite under DATA_DIR, the in-process
 * bus) killed between a write and its consumer: the event is delivered at the next start, once.
 * The write is a data plan bought from credit (billing announces the plan; identity applies it).
 * BUS_TEST_DELIVERY_DELAY_MS holds every delivery in the killed run, so the kill always lands after
 * the purchase committed and before identity handled it.
 */
describe('embedded all-in-one killed between a write and its consumer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-embedded-'));
  const dataDir = join(dir, 'data');
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: ServiceProcess | undefined;

  beforeAll(async () => {
    smtp = await startSmtp();
  });

  afterAll(async () => {
    await running?.kill();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One run of the all-in-one on the same directory; `system` is what the account helpers use. */
  async function start(extra: Record<string, string> = {}): Promise<System> {
    running = await startServiceProcess(
      'scripts/start.ts',
      {
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        NATS_URL: '',
        HOST: '127.0.0.1',
        X402_LOCAL_CHAIN: 'off',
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
        LOG_LEVEL: 'warn',
        ...extra,
      },
      { readyTimeoutMs: 180_000 },
    );
    return { gatewayUrl: running.url } as System;
  }

  const planOf = async (system: System, session: string): Promise<string> => {
    const res = await fetch(`${system.gatewayUrl}/v1/account`, {
      headers: { authorization: `Bearer ${session}` },
    });
    return ((await res.json()) as { data: { plan: string } }).data.plan;
  };

  it('delivers the plan bought before the kill at the next start, exactly once', async () => {
    let system = await start();
    const { session } = await signedInAccount(system, smtp, 'embedded');
    const whoami = await fetch(`${system.gatewayUrl}/v1/agent/whoami`, {
      headers: { authorization: `Bearer ${session}` },
    });
    const accountId = ((await whoami.json()) as { data: { account_id: string } }).data.account_id;
    // The operator's credit grant, run by the running process (the operator is checked by identity).
    const granted = await grantCredit(
      { DATA_DIR: dataDir, DATABASE_URL: '' },
      accountId,
      60_000_000,
      'e2e',
      await operatorOf(system, smtp, { DATA_DIR: dataDir, DATABASE_URL: '' }),
    );
    expect(granted).toMatchObject({ code: 0 });
    await running!.close();

    system = await start({ BUS_TEST_DELIVERY_DELAY_MS: '600000' });
    const bought = await postJson(system, '/v1/billing/plan', { plan: 'pro' }, session);
    expect(bought.status).toBe(200);
    // Time for billing's relay to hand the event to the bus, which holds it before identity.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await planOf(system, session)).toBe('free');
    await running!.kill();

    system = await start();
    let plan = 'free';
    for (const until = Date.now() + 20_000; plan !== 'pro' && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      plan = await planOf(system, session);
    }
    expect(plan).toBe('pro');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await running!.close();
    running = undefined;

    // Once: one record of the event by identity's consumer, one announcement of the new plan.
    const pglite = await openPGlite(join(dataDir, 'pglite'));
    try {
      const processed = await pglite.query<{ n: number }>(
        'select count(*)::int as n from identity.processed_events where consumer = $1',
        [DURABLES.identityPlanChanged],
      );
      expect(processed.rows[0]!.n).toBe(1);
      const announced = await pglite.query<{ n: number }>(
        `select count(*)::int as n from identity.outbox where subject = $1 and payload->'data'->>'account_id' = $2`,
        [EVENTS.identityAccountPlanChanged, accountId],
      );
      expect(announced.rows[0]!.n).toBe(1);
    } finally {
      await pglite.close();
    }
  }, 400_000);
});
