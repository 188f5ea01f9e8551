import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RPC } from '@meridian/contracts';
import { openPGlite } from '@meridian/db';
import { runScript } from '@meridian/test-peers';
import { main } from '../../scripts/admin.js';
import { recordDeposit } from '../../src/flows/record-deposit.js';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { startBilling, type Billing } from './harness.js';

const ANA = 'ana@meridian.test';
const BO = 'bo@meridian.test';

describe('billing:admin, the operators interface', () => {
  let billing: Billing;

  beforeAll(async () => {
    billing = await startBilling('billing_admin');
    billing.identity.operators.set(ANA, randomUUID());
    billing.identity.operators.set(BO, randomUUID());
  });
  afterEach(async () => billing.assertBalancesMatchLedger());
  afterAll(async () => billing?.close());

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, {
      env: { DATABASE_URL: billing.databaseUrl, NATS_URL: TEST_NATS_URL, BUS_NAMESPACE: billing.namespace },
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('grants once per line, names the operator and refuses a revoke the balance cannot take', async () => {
    const account = randomUUID();
    billing.identity.accounts.add(account);
    const grant = [
      'grant',
      '--operator',
      ANA,
      '--account',
      account,
      '--amount',
      '5000000',
      '--note',
      'goodwill',
    ];
    expect(await admin(...grant)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^posted entry \d+ \(admin_grant 5000000\); balance 5000000/),
    });
    expect(await admin(...grant)).toMatchObject({ code: 0, out: expect.stringMatching(/^already posted/) });
    const revoke = await admin(
      'revoke',
      '--operator',
      ANA,
      '--account',
      account,
      '--amount',
      '6000000',
      '--note',
      'chargeback',
    );
    expect(revoke.code).toBe(2);
    expect(revoke.err).toMatch(/credit balance is \$5\.00; this needs \$6\.00/);
    expect(
      await admin(
        'revoke',
        '--operator',
        BO,
        '--account',
        account,
        '--amount',
        '2000000',
        '--note',
        'chargeback',
      ),
    ).toMatchObject({ code: 0 });
    expect(
      await admin(
        'topup',
        '--operator',
        BO,
        '--account',
        account,
        '--amount',
        '1000000',
        '--note',
        'wire 2026-11-20',
      ),
    ).toMatchObject({ code: 0 });
    expect((await admin('balance', '--account', account)).out).toBe('4000000\n');
  });

  it('refunds an order at most what it spent', async () => {
    const account = randomUUID();
    await billing.grant(account, 9_000_000);
    await billing.client.request(RPC.billingCreditSpend, {
      account_id: account,
      order_id: 'run-adminref1',
      item: 'run:audit_base',
    });
    const over = await admin(
      'refund',
      '--operator',
      ANA,
      '--account',
      account,
      '--order',
      'run-adminref1',
      '--amount',
      '9000001',
    );
    expect(over).toMatchObject({
      code: 2,
      err: expect.stringMatching(/has \$9\.00 left to refund; \$9\.000001 was asked/),
    });
    expect(
      await admin('refund', '--operator', ANA, '--account', account, '--order', 'run-adminref1'),
    ).toMatchObject({ code: 0, out: expect.stringMatching(/^refunded 9000000; balance 9000000/) });
    expect(
      (
        await admin(
          'refund',
          '--operator',
          ANA,
          '--account',
          account,
          '--order',
          'run-adminref1',
          '--key',
          'again',
        )
      ).code,
    ).toBe(2);
  });

  it('lists unmatched deposits for an operator and refuses bad arguments', async () => {
    await recordDeposit(billing.deps, 'watched', {
      tx_signature: 'sig-unmatched-1',
      slot: 5,
      block_time: null,
      amount_atomic: 42,
      memo: 'for coffee',
    });
    expect((await admin('unmatched')).out).toContain('sig-unmatched-1 42 "for coffee"');
    expect((await admin('grant', '--account', randomUUID(), '--amount', '1', '--note', 'x')).err).toMatch(
      /--operator is required/,
    );
    expect(
      (await admin('grant', '--operator', ANA, '--account', 'nope', '--amount', '1', '--note', 'x')).code,
    ).toBe(2);
    expect((await admin('mint')).err).toMatch(/the command is one of/);
  });

  it('refuses in one line with exit code 2 when the embedded database is held and no process serves commands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'billing-admin-'));
    // This process holds the directory, as a running system would, but serves no command socket.
    const pglite = await openPGlite(join(dir, 'pglite'));
    try {
      const refused = await runScript(
        'services/billing/scripts/admin.ts',
        ['balance', '--account', randomUUID()],
        { DATA_DIR: dir, DATABASE_URL: '' },
      );
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^billing:admin: The embedded database in .* is in use by process ${process.pid} `),
        ),
      ]);
    } finally {
      await pglite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
