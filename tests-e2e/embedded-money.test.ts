import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { creditsAnswerSchema, paymentRequiredSchema } from '@meridian/contracts';
import { runScript, startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { readLocalChain } from '@meridian/local-chain';
import { grantCredit, operatorOf, signedInAccount } from './src/accounts.js';
import type { System } from './src/system.js';

/**
 * Money on the embedded default: `pnpm start` with no DATABASE_URL, NATS_URL or FACILITATOR_URL
 * runs its local chain for both rails. A person signs up, tops up with `pnpm deposit:pay` (the
 * command itself, as a process) and sees the credit on /v1/credits through the gateway; the
 * challenge, the prices and the credits name one network and one asset. The local chain's process
 * starts at that first deposit, not with the system, and then sells a call to `pnpm x402:pay`.
 */

/** Command lines of every process under `pid`. */
function commandsUnder(pid: number): string[] {
  const out: string[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const file = `/proc/${pid}/task/${task}/children`;
    if (!existsSync(file)) continue;
    for (const child of readFileSync(file, 'utf8').split(' ').filter(Boolean).map(Number)) {
      out.push(readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' '));
      out.push(...commandsUnder(child));
    }
  }
  return out;
}
const chainRunning = (pid: number) => commandsUnder(pid).some((cmd) => cmd.includes('chain-process.ts'));
describe('embedded all-in-one: a deposit on the local chain', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-money-'));
  const dataDir = join(dir, 'data');
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: ServiceProcess | undefined;
  let system: System;

  beforeAll(async () => {
    smtp = await startSmtp();
    running = await startServiceProcess(
      'scripts/start.ts',
      {
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        NATS_URL: '',
        FACILITATOR_URL: '',
        DEPOSIT_ADDRESS: '',
        HOST: '127.0.0.1',
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
        LOG_LEVEL: 'warn',
      },
      { readyTimeoutMs: 180_000 },
    );
    system = { gatewayUrl: running.url } as System;
  }, 240_000);

  afterAll(async () => {
    await running?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, session?: string) =>
    fetch(`${system.gatewayUrl}${path}`, {
      headers: session ? { authorization: `Bearer ${session}` } : {},
    });

  it('credits a deposit paid with deposit:pay, on one network and asset everywhere', async () => {
    const { session } = await signedInAccount(system, smtp, 'money');
    const whoami = await get('/v1/agent/whoami', session);
    const accountId = ((await whoami.json()) as { data: { account_id: string } }).data.account_id;

    const before = creditsAnswerSchema.parse(await (await get('/v1/credits', session)).json());
    const chain = readLocalChain(dataDir)!;
    expect(before.topup).toEqual({
      deposit_address: chain.deposit_address,
      memo: `top-${accountId}`,
      asset: chain.mint,
      network: chain.network,
    });
    expect(before.topup.deposit_address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const prices = (await (await get('/v1/billing/prices')).json()) as {
      data: { pay_per_call: { network: string; asset: string } };
    };
    expect(prices.data.pay_per_call).toMatchObject({ network: chain.network, asset: chain.mint });
    const challenge = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(challenge.status).toBe(402);
    const [accept] = paymentRequiredSchema.parse(await challenge.json()).accepts;
    expect(accept).toMatchObject({ network: chain.network, asset: chain.mint });
    // Neither the start, the deposit watcher's reads nor a challenge started the chain.
    expect(chainRunning(running!.pid)).toBe(false);

    const paid = await runScript(
      'packages/local-chain/src/deposit-pay.ts',
      ['--memo', `top-${accountId}`, '--usd', '25'],
      { DATA_DIR: dataDir },
    );
    expect(paid).toMatchObject({ code: 0 });
    const { signature } = JSON.parse(paid.stdout) as { signature: string };

    let credits = before;
    const deadline = Date.now() + 20_000;
    while (credits.balance_atomic === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      credits = creditsAnswerSchema.parse(await (await get('/v1/credits', session)).json());
    }
    expect(credits.balance_atomic).toBe(25_000_000);
    expect(credits.entries).toEqual([
      expect.objectContaining({ delta_atomic: 25_000_000, reason: 'topup_usdc', ref: signature }),
    ]);
    expect(chainRunning(running!.pid)).toBe(true);
  }, 90_000);

  it('sells a call to x402:pay through the facilitator address pnpm start gave', async () => {
    const chain = readLocalChain(dataDir)!;
    const read = `${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD`;
    const run = await runScript('packages/local-chain/src/x402-pay.ts', [read], {
      X402_FACILITATOR_URL: chain.facilitator_url,
    });
    expect(run).toMatchObject({ code: 0 });
    const printed = JSON.parse(run.stdout) as { status: number; receipt: { success: boolean } };
    expect(printed).toMatchObject({ status: 200, network: chain.network, receipt: { success: true } });
  }, 60_000);

  it('runs billing:admin while the system runs: the running process, the one writer, posts the grant', async () => {
    const { session } = await signedInAccount(system, smtp, 'operated');
    const whoami = await get('/v1/agent/whoami', session);
    const accountId = ((await whoami.json()) as { data: { account_id: string } }).data.account_id;
    const granted = await grantCredit(
      { DATA_DIR: dataDir, DATABASE_URL: '' },
      accountId,
      7_000_000,
      'live',
      await operatorOf(system, smtp, { DATA_DIR: dataDir, DATABASE_URL: '' }),
    );
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    expect(granted.stdout).toMatch(/^posted entry \d+ \(admin_grant 7000000\); balance 7000000\n$/);
    const credits = creditsAnswerSchema.parse(await (await get('/v1/credits', session)).json());
    expect(credits.balance_atomic).toBe(7_000_000);
    expect(credits.entries[0]).toMatchObject({
      reason: 'admin_grant',
      actor: expect.stringMatching(/^operator:[0-9a-f-]{36}$/),
      ref: 'live',
    });
    // The process goes on serving after the command.
    expect((await get('/health')).status).toBe(200);
  }, 60_000);

  it('imports a file with data:import while the system runs', async () => {
    const file = join(dir, 'observations.csv');
    writeFileSync(file, 'key,metric,ts,value\nlondon,temperature,2024-11-14T12:00:00Z,7.5\n');
    const imported = await runScript(
      'services/data/scripts/import.ts',
      ['--kind', 'observations', '--source', 'open_meteo', '--file', file],
      { DATA_DIR: dataDir, DATABASE_URL: '' },
    );
    expect(imported).toMatchObject({ code: 0, stdout: expect.stringContaining('1 inserted') });
  }, 60_000);

  it('answers an operator refusal in one line with exit code 2, run by the system as well', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    for (const [script, argv] of [
      [
        'services/billing/scripts/admin.ts',
        ['grant', '--operator', 'e2e', '--account', 'nope', '--amount', '5', '--note', 'x'],
      ],
      ['services/requests/scripts/admin.ts', ['close']],
    ] as const) {
      const refused = await runScript(script, [...argv], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^(billing|requests):admin: /),
      ]);
    }
  }, 60_000);

  it('refuses deposit:pay with one line and exit code 2 when the amount is not one', async () => {
    const refused = await runScript(
      'packages/local-chain/src/deposit-pay.ts',
      ['--memo', 'top-x', '--usd', '1.1234567'],
      { DATA_DIR: dataDir },
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^deposit:pay: --usd: /)]);
  }, 30_000);
});
