import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { creditsAnswerSchema, reportSchema } from '@meridian/contracts';
import { runScript, startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { signedInAccount, type SignedIn } from './src/accounts.js';
import { check } from './src/browser-checks.js';
import { eventually } from './src/eventually.js';
import type { System } from './src/system.js';
import { itWithBrowser, launchBrowser } from './src/browser.js';

/**
 * An audit tried offline on `pnpm start`: its demo site, added from the portal, verified by a TXT
 * record published with `pnpm demo:txt` on the all-in-one's own resolver, paid from credit topped
 * up with `pnpm deposit:pay`, run, read, printed and shared, with nothing leaving the machine.
 */
const DEMO = 'shop.meridian-demo.test';

describe('embedded all-in-one: the whole audit offline on the demo site', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-demo-'));
  const dataDir = join(dir, 'data');
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: ServiceProcess | undefined;
  let system: System;
  let person: SignedIn;

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
        DNS_SERVERS: '',
        HOST: '127.0.0.1',
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
        LOG_LEVEL: 'warn',
      },
      { readyTimeoutMs: 180_000 },
    );
    system = { gatewayUrl: running.url } as System;
    person = await signedInAccount(system, smtp, 'demo');
  }, 240_000);

  afterAll(async () => {
    await running?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(path: string, init: RequestInit = {}) => {
    const res = await fetch(`${system.gatewayUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${person.session}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  itWithBrowser(
    'offers the demo site on the domains page, marked as a demo',
    async () => {
      const browser: Browser = await launchBrowser();
      try {
        for (const [name, viewport] of [
          ['desktop', { width: 1280, height: 900 }],
          ['phone', { width: 390, height: 844 }],
        ] as const) {
          const page = await (await browser.newContext({ viewport })).newPage();
          await page.goto(`http://localhost:${new URL(system.gatewayUrl).port}/#/signin`);
          await page.getByLabel('Email').fill(person.email);
          await page.getByLabel('Password').fill(person.password);
          await page.getByRole('button', { name: 'Sign in', exact: true }).click();
          const offer = page.getByTestId('demo-offer');
          await offer.waitFor();
          await expect(offer.textContent()).resolves.toMatch(
            /not a real site and exists only on this machine/,
          );
          await check(page, `demo-offer-${name}`);
        }
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  it('verifies the demo by a TXT record published on the local resolver', async () => {
    const listed = await call<{ meta: { demo_domain: string | null } }>('/v1/analysis/domains');
    expect(listed.body.meta.demo_domain).toBe(DEMO);
    const added = await call<{ data: { verification: { name: string; value: string } } }>(
      '/v1/analysis/domains',
      {
        method: 'POST',
        body: JSON.stringify({ domain: DEMO }),
      },
    );
    expect(added.status).toBe(201);
    const { name, value } = added.body.data.verification;
    const help = await call<{ data: { provider: { id: string }; help: string } }>(
      `/v1/analysis/dns-provider?domain=${DEMO}`,
    );
    expect(help.body.data.provider.id).toBe('meridian-demo');
    expect(help.body.data.help).toContain(`demo:txt --name ${name} --value ${value}`);
    expect(
      (await call<{ data: { found: boolean } }>(`/v1/analysis/verify?domain=${DEMO}`)).body.data.found,
    ).toBe(false);

    const published = await runScript(
      'packages/local-demo/src/demo-txt.ts',
      ['--name', name, '--value', value],
      {
        DATA_DIR: dataDir,
      },
    );
    expect(published).toMatchObject({ code: 0 });
    const verified = await call<{ data: { found: boolean; verified: boolean } }>(
      `/v1/analysis/verify?domain=${DEMO}`,
    );
    expect(verified.body.data).toMatchObject({ found: true, verified: true });
  }, 60_000);

  it('runs the audit from credit, then reads the report, its PDF and a share link', async () => {
    const whoami = await call<{ data: { account_id: string } }>('/v1/agent/whoami');
    const paid = await runScript(
      'packages/local-chain/src/deposit-pay.ts',
      ['--memo', `top-${whoami.body.data.account_id}`, '--usd', '200'],
      { DATA_DIR: dataDir },
    );
    expect(paid).toMatchObject({ code: 0 });
    await eventually(
      async () => creditsAnswerSchema.parse((await call('/v1/credits')).body).balance_atomic === 200_000_000,
      30_000,
    );
    const run = await call<{ data: { id: string } }>('/v1/analysis/run', {
      method: 'POST',
      body: JSON.stringify({ domain: DEMO, tier: 'audit_base', payment: 'credit' }),
    });
    expect(run.status).toBe(201);
    const id = run.body.data.id;
    await eventually(async () => (await call(`/v1/analysis/report/${id}`)).status === 200, 90_000);
    const report = reportSchema.parse((await call<{ data: unknown }>(`/v1/analysis/report/${id}`)).body.data);
    expect(report).toMatchObject({ domain: DEMO, status: 'succeeded', grade: expect.any(String) });
    expect(report.findings.map((f) => f.id)).toEqual(
      expect.arrayContaining(['files.exposed.env', 'headers.hsts.short']),
    );
    const pdf = await fetch(`${system.gatewayUrl}/v1/analysis/report/${id}/pdf`, {
      headers: { authorization: `Bearer ${person.session}` },
    });
    expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    const share = await call<{ data: { url: string } }>(`/v1/analysis/report/${id}/share`, {
      method: 'POST',
      body: '{}',
    });
    expect(share.status).toBe(201);
    const shared = await fetch(`${system.gatewayUrl}${new URL(share.body.data.url).pathname}`);
    expect(shared.status).toBe(200);
  }, 150_000);
});
