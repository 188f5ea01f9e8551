import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { SESSION_COOKIE } from '@meridian/contracts';
import { rememberSecret } from '@meridian/observability/testing';
import { linkIn, startDnsPeer, startSmtp, type DnsPeer } from '@meridian/test-peers';
import {
  commandEnv,
  grantCredit,
  operatorOf,
  postJson,
  signedInAccount,
  type SignedIn,
} from './src/accounts.js';
import { dollars } from '../portal/src/pages/money.js';
import { check, SCREENSHOTS } from './src/browser-checks.js';
import { expectNoSidewaysOverflow, expectPlainWords } from './src/layout-checks.js';
import { startSystem, type System } from './src/system.js';
import { describeWithBrowser, launchBrowser } from './src/browser.js';

const PASSWORD = rememberSecret('tangerine-orbit-lattice-93');
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
] as const;

/**
 * The portal in words, on a 390-px phone and on a desktop: money in dollars and refusals in
 * sentences (never atomic units, HTTP titles or raw codes), a data plan bought and confirmed at
 * once with its ledger lines named, a refused booking that leaves nothing behind, a page for an
 * unknown address, identity's mailed-link page styled like the portal, and every section's tables
 * within the screen with their last column reachable.
 */
describeWithBrowser('the portal in plain words, on a phone and a desktop', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: DnsPeer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    smtp = await startSmtp();
    dns = await startDnsPeer();
    system = await startSystem('e2e_portal_words', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: dns.address,
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
    base = `http://localhost:${new URL(system.gatewayUrl).port}`;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.close();
    await dns?.close();
  });

  const api = async (method: string, path: string, who: SignedIn, body?: unknown) => {
    const res = await fetch(`${system.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${who.session}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  /** A key, and a verified domain with a run quoted for payment on chain (so both tables have rows). */
  async function keyAndDomain(who: SignedIn, label: string): Promise<string> {
    expect((await api('POST', '/v1/keys', who, {})).status).toBe(201);
    const domain = `shop-${label}.words-e2e.example`;
    const added = await api('POST', '/v1/analysis/domains', who, { domain });
    const verification = added.body.data.verification as { name: string; value: string };
    dns.zone.TXT.set(verification.name, [verification.value]);
    expect((await api('GET', `/v1/analysis/verify?domain=${domain}`, who)).body.data.verified).toBe(true);
    const run = await api('POST', '/v1/analysis/run', who, {
      domain,
      tier: 'audit_base',
      payment: 'deposit',
    });
    expect(run.status).toBe(201);
    return domain;
  }

  async function look(page: Page, name: string): Promise<void> {
    await expectNoSidewaysOverflow(page, name);
    await expectPlainWords(page, name);
    await check(page, name);
  }

  /** Booking a slot from credit the account lacks: a sentence in dollars, and no booking left. */
  async function refusedBooking(page: Page, who: SignedIn, shot: string): Promise<void> {
    await page.goto(`${base}/#/consulting`);
    await page.getByLabel('Slot').selectOption({ index: 3 });
    await page.getByRole('button', { name: 'Book' }).click();
    const refusal = page
      .locator('form')
      .getByRole('alert')
      .filter({ hasText: /credit/ });
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(
      /^Your credit does not cover this: it costs \$\d+\.\d\d and your balance is \$0\.00\. Top up/,
    );
    await refusal.getByRole('link', { name: 'Go to Credit' }).waitFor();
    expect((await api('GET', '/v1/consulting/bookings', who)).body.data).toEqual([]);
    await expect(page.getByTestId('bookings').innerText()).resolves.toBe('None yet.');
    await look(page, shot);
  }

  /** A month of basic, then of pro: each confirmed at once, the upgrade's credit named. */
  async function buyPlans(page: Page, who: SignedIn, shot: string): Promise<void> {
    const prices = (await (await fetch(`${system.gatewayUrl}/v1/billing/prices`)).json()) as {
      data: { plans: Array<{ plan: string; monthly_price_atomic: number | null }> };
    };
    const price = (plan: string) => prices.data.plans.find((p) => p.plan === plan)!.monthly_price_atomic!;
    const me = await api('GET', '/v1/account', who);
    const granted = await grantCredit(
      commandEnv(system),
      String(me.body.data.account_id),
      price('basic') + price('pro'),
      'words e2e',
      await operatorOf(system, smtp, commandEnv(system)),
    );
    expect(granted.code).toBe(0);
    await page.goto(`${base}/#/account`);
    await expect(page.getByTestId('plan').innerText()).resolves.toBe('Plan: Free.');
    for (const plan of ['basic', 'pro']) {
      await page.getByLabel('Buy a month of').selectOption(plan);
      await page.getByRole('button', { name: 'Buy from credit' }).click();
      const bought = page.getByTestId('plan-bought');
      await bought.getByText(new RegExp(`^Bought: a month of ${plan}`, 'i')).waitFor();
      expect(await bought.innerText()).toMatch(
        new RegExp(
          `for \\${dollars(price(plan))}, paid from credit\\. Your plan is now ${plan}, until `,
          'i',
        ),
      );
      await expect(page.getByTestId('plan').innerText()).resolves.toMatch(
        new RegExp(`^Plan: ${plan}, paid until `, 'i'),
      );
    }
    await look(page, `${shot}-account`);
    await page.goto(`${base}/#/credit`);
    for (const line of ['Operator grant', 'Data plan', 'Plan change credit'])
      await page.getByRole('cell', { name: line, exact: true }).first().waitFor();
    await look(page, `${shot}-credit`);
  }

  for (const viewport of VIEWPORTS) {
    it(`${viewport.name}: every section in words, within the screen`, async () => {
      const who = await signedInAccount(system, smtp, `words-${viewport.name}`);
      const domain = await keyAndDomain(who, viewport.name);
      const context = await browser.newContext({ viewport });
      await context.addCookies([{ name: SESSION_COOKIE, value: who.session, url: base }]);
      const page = await context.newPage();
      const shot = `words-${viewport.name}`;

      await page.goto(`${base}/#/no-such-page`);
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      await expect(page.title()).resolves.toBe('Page not found · Meridian');
      await look(page, `${shot}-01-not-found`);

      await refusedBooking(page, who, `${shot}-02-booking-refused`);
      await buyPlans(page, who, `${shot}-03`);

      await page.goto(`${base}/#/domain/${domain}`);
      await page.getByRole('cell', { name: 'waiting for payment' }).waitFor();
      await look(page, `${shot}-04-domain`);
      await page.goto(`${base}/#/welcome`);
      await page.getByTestId('plans').waitFor();
      await look(page, `${shot}-05-plans`);
      await page.goto(`${base}/#/consulting`);
      await page.getByLabel('Kind').selectOption('consultancy');
      await page.getByRole('button', { name: 'Send request' }).click();
      await page.getByTestId('request-count').waitFor();
      await look(page, `${shot}-06-requests`);
      await context.close();
    }, 180_000);
  }

  it("identity's mailed confirmation page looks like the portal on a phone and a desktop", async () => {
    const email = `words-confirm.${Date.now()}@example.com`;
    expect((await postJson(system, '/auth/signup', { email, password: PASSWORD })).status).toBe(202);
    const deadline = Date.now() + 15_000;
    while (!smtp.mails.some((m) => m.to === email) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const link = linkIn(smtp.mails.find((m) => m.to === email)!);
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${base}${link.pathname}${link.search}`);
      await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
      const looks = await page.evaluate(`({
        font: getComputedStyle(document.body).fontFamily,
        button: getComputedStyle(document.querySelector('button')).backgroundColor,
        brand: document.querySelector('header a')?.getAttribute('href'),
      })`);
      expect(looks).toEqual({
        font: 'system-ui, sans-serif',
        button: 'rgb(11, 83, 148)',
        brand: '/#/welcome',
      });
      await expectNoSidewaysOverflow(page, `confirm-${viewport.name}`);
      await check(page, `words-${viewport.name}-07-confirm-email`);
      await context.close();
    }
  }, 60_000);
});
