import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { rememberSecret } from '@meridian/observability/testing';
import { linkIn, startDnsPeer, startSmtp, type DnsPeer } from '@meridian/test-peers';
import { SCREENSHOTS, check, expectLandingToShowPrices } from './src/browser-checks.js';
import { consultingAndSubscription, exploreData } from './src/portal-flows.js';
import { startSite, type Site } from './src/site.js';
import { commandEnv, grantCredit, operatorOf } from './src/accounts.js';
import { startSystem, type System } from './src/system.js';
import { totpCode } from './src/totp.js';
import { describeWithBrowser, launchBrowser } from './src/browser.js';

const PASSWORD = rememberSecret('lantern-orchard-basalt-74');
const DOMAIN = 'shop.portal-e2e.example';
const DEPOSIT = 'Dep1t5WaLLet1111111111111111111111111111111';

describeWithBrowser('the web portal in a real browser', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: DnsPeer;
  let site: Site;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    smtp = await startSmtp();
    dns = await startDnsPeer();
    site = await startSite();
    dns.zone.A.set(DOMAIN, ['127.0.0.1']);
    system = await startSystem('e2e_portal', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: dns.address,
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_HTTP_PORT: String(site.port),
      SCANNER_HTTPS_PORT: '9',
      SCANNER_TIMEOUT_MS: '2000',
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
      DEPOSIT_ADDRESS: DEPOSIT,
      SOLANA_NETWORK: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    });
    const port = new URL(system.gatewayUrl).port;
    base = `http://localhost:${port}`;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.close();
    await dns?.close();
    await site?.close();
  });

  const waitForMail = async (to: string, count = 1) => {
    const deadline = Date.now() + 15_000;
    while (smtp.mails.filter((m) => m.to === to).length < count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const mails = smtp.mails.filter((m) => m.to === to);
    if (mails.length < count) throw new Error(`no mail for ${to}`);
    return mails[mails.length - 1]!;
  };

  it('serves the page with a CSP that allows no inline script, and a first page under 150 KB of script', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    const script = html.match(/src="(\/assets\/app-[^"]+\.js)"/)![1]!;
    const js = await fetch(`${base}${script}`);
    expect(js.status).toBe(200);
    expect((await js.arrayBuffer()).byteLength).toBeLessThan(150 * 1024 * 3);
  });

  it('a visitor at / learns what Meridian is, with the plans and prices of /v1/billing/prices, before any sign-in', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Meridian', level: 1 }).waitFor();
    await page.getByTestId('plans').waitFor();
    await expectLandingToShowPrices(page);
    await check(page, '00-welcome');
    await context.close();
  });

  /** Credit granted by the operator's command, shown on the credit page with the top-up's address. */
  async function creditAndTopUp(page: Page): Promise<void> {
    // Credit for the run and the booking (the operator's command).
    const whoami = (
      await page.evaluate(
        async () => (await (await fetch('/v1/agent/whoami')).json()) as { data: { account_id: string } },
      )
    ).data;
    const granted = await grantCredit(
      commandEnv(system),
      whoami.account_id,
      300_000_000,
      'portal e2e',
      await operatorOf(system, smtp, commandEnv(system)),
    );
    expect(granted).toMatchObject({ code: 0 });
    await page.goto(`${base}/#/credit`);
    await page.getByTestId('balance').waitFor();
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('$300.00');
    // Top up: the money in words, the address to copy and its QR code; the ids only in the details.
    const topup = page.getByTestId('topup');
    await expect(topup.innerText()).resolves.toContain('USDC on Solana devnet');
    await expect(page.getByTestId('network-note').innerText()).resolves.toContain('not mainnet');
    expect(await topup.innerText()).not.toMatch(/solana:|4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU/);
    await page.getByRole('button', { name: 'Copy address' }).click();
    await page.getByText('Copied.').waitFor();
    expect(
      await page.evaluate(() =>
        (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText(),
      ),
    ).toBe(DEPOSIT);
    const qr = page.getByRole('img', { name: /QR code to pay USDC on Solana devnet/ });
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(
      await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    await page.getByRole('cell', { name: 'Operator grant' }).first().waitFor();
    await check(page, '04-credit');
  }

  /** A run on the local site, its live trace, the report by severity; shared, opened signed out, revoked. */
  async function runReportAndShare(page: Page): Promise<void> {
    // A run on the local site, its live trace, then the report.
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.getByTestId('trace').waitFor();
    await check(page, '06-run');
    await page.getByRole('link', { name: 'Open the report' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('trace').locator('li').count()).toBeGreaterThan(3);
    await page.getByRole('link', { name: 'Open the report' }).click();
    await page.getByTestId('grade').waitFor();
    await expect(page.getByTestId('grade').textContent()).resolves.toMatch(/^Grade [A-F][+-]?$/);
    expect(await page.getByTestId('grade').getAttribute('class')).toMatch(/\bbadge\b/);
    const groups = page.locator('[data-testid^="severity-"]');
    expect(await groups.count()).toBeGreaterThan(0);
    for (const group of await groups.all()) {
      const counted = Number(
        (await group.getByRole('heading', { level: 3 }).innerText()).match(/\((\d+)\)/)![1],
      );
      expect(await group.locator('li.card').count()).toBe(counted);
    }
    await check(page, '07-report');

    // Share it; the link opens signed out; then revoke it.
    await page.getByRole('button', { name: 'Create share link' }).click();
    const shareUrl = (await page.getByTestId('share-url').textContent())!;
    const stranger = await browser.newContext();
    const outside = await stranger.newPage();
    const shown = await outside.goto(shareUrl);
    expect(shown?.status()).toBe(200);
    await outside.getByText(DOMAIN).first().waitFor();
    await outside.screenshot({ path: `${SCREENSHOTS}/08-shared.png`, fullPage: true });
    await page.getByRole('button', { name: 'Revoke the link' }).click();
    await page.getByText('The link was revoked.').waitFor();
    expect((await outside.goto(shareUrl))?.status()).toBe(410);
    await stranger.close();
  }

  /** Signed out, the session cookie is gone; signing in again asks for the TOTP code. */
  async function signOutAndBackIn(
    page: Page,
    context: BrowserContext,
    email: string,
    secret: string,
  ): Promise<void> {
    // Sign out; signing in again asks for the TOTP code.
    await page.goto(`${base}/#/signout`);
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    await check(page, '11-signed-out');
    expect((await context.cookies()).find((c) => c.name === 'meridian_session')).toBeUndefined();
    await page.goto(`${base}/#/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-factor check' }).waitFor();
    await check(page, '12-totp-challenge');
    await page.getByLabel('Code', { exact: true }).fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    await page.getByText(DOMAIN).first().waitFor();
    await check(page, '13-domains');
  }

  it('a person signs up, confirms, turns on TOTP, creates a key, verifies a domain, runs an audit, shares the report, books consulting, files a request, explores the data, signs out and back in with TOTP', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    const email = `portal.${Date.now()}@example.com`;

    // Sign up.
    await page.goto(`${base}/#/signup`);
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await check(page, '01-signup');
    await page.getByLabel('Email').first().fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your mail').waitFor();

    // Confirm by the mailed link (identity's page), which links back to the portal's sign-in.
    const link = linkIn(await waitForMail(email));
    await page.goto(`${base}${link.pathname}${link.search}`);
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole('button', { name: /Confirm/ }).click();
    await page.getByRole('link', { name: 'sign in' }).click();

    // Sign in.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await check(page, '02-signin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'meridian_session')).toMatchObject({ httpOnly: true });
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // TOTP on, with recovery codes.
    await page.goto(`${base}/#/account`);
    await page.getByLabel('Password to confirm it is you').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    await page.getByLabel('First code from the app').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await expect(page.getByTestId('totp-state').textContent()).resolves.toContain('On');
    await expect(page.getByTestId('provider-links').textContent()).resolves.toBe('No provider linked.');

    // A key, shown once.
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    rememberSecret(key);
    expect(key).toMatch(/^mk_live_/);
    await check(page, '03-account');

    await creditAndTopUp(page);

    // A domain, verified against the local DNS server.
    await page.goto(`${base}/#/domains`);
    await page.getByLabel('Add a domain').fill(DOMAIN);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const value = (await page.getByTestId('txt-value').textContent())!;
    dns.zone.TXT.set(`_meridian-verify.${DOMAIN}`, [value]);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByTestId('verified').waitFor();
    await check(page, '05-domain');

    await runReportAndShare(page);

    await consultingAndSubscription(page, base);

    await exploreData(page, base, key);

    await signOutAndBackIn(page, context, email, secret);

    // Billing down: the credit page says top-ups are not available, and why.
    await system.kill('billing');
    await page.goto(`${base}/#/credit`);
    await expect(page.getByTestId('topup-unavailable').innerText()).resolves.toContain('not available');
    await context.close();
  }, 240_000);
});
