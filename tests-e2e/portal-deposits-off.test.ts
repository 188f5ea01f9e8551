import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { startSmtp } from '@meridian/test-peers';
import { signedInAccount } from './src/accounts.js';
import { startSystem, type System } from './src/system.js';
import { describeWithBrowser, launchBrowser } from './src/browser.js';

/**
 * A deployment with no deposit address refuses the top-up answer (503 naming DEPOSIT_ADDRESS)
 * rather than show an address no one can pay to; the portal's credit page says so and keeps the
 * billing history.
 */
describeWithBrowser('the credit page of a deployment without a deposit address', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    system = await startSystem('e2e_nodeposit', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: 'loopback',
      DEPOSIT_ADDRESS: '',
    });
    base = `http://localhost:${new URL(system.gatewayUrl).port}`;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.close();
  });

  it('says top-ups are off, naming the setting, and still shows the billing history', async () => {
    const { email, password } = await signedInAccount(system, smtp, 'nodeposit');
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/#/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Domains' }).waitFor();

    await page.goto(`${base}/#/credit`);
    await page.getByRole('heading', { name: 'Top up' }).waitFor();
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(
      /no deposit address is set \(DEPOSIT_ADDRESS\)/,
    );
    await page.getByRole('heading', { name: 'Billing history' }).waitFor();
    expect(await page.locator('code').count()).toBe(0);
  }, 90_000);
});
