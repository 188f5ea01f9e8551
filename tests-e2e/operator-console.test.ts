import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { SESSION_COOKIE } from '@meridian/contracts';
import { rememberSecret } from '@meridian/observability/testing';
import { runScript, startDnsPeer, startSmtp, type DnsPeer } from '@meridian/test-peers';
import { commandEnv, grantCredit, mailTo, postJson, signedInAccount, type SignedIn } from './src/accounts.js';
import { check, SCREENSHOTS } from './src/browser-checks.js';
import { grantWithConfirmation, logAndGrants } from './src/operator-console.js';
import { startSite, type Site } from './src/site.js';
import { startSystem, type System } from './src/system.js';
import { totpCode } from './src/totp.js';
import { describeWithBrowser, launchBrowser } from './src/browser.js';

const DOMAIN = 'shop.operator-e2e.example';

/**
 * The operator console: the operator role granted by `identity:admin`, refused without
 * TOTP, then the review of an `audit_review` run recorded in the console in a real browser, and
 * what the owner sees through the gateway afterwards (report, PDF, shared page, the mail); a grant
 * confirmed in dollars and by email, then the operator log and the grants, filtered, at desktop
 * width and at 390 px.
 */
describeWithBrowser('the operator console', () => {
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
    system = await startSystem('e2e_operator', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: dns.address,
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_HTTP_PORT: String(site.port),
      SCANNER_HTTPS_PORT: '9',
      SCANNER_TIMEOUT_MS: '2000',
      SCANNER_ACTIVE_DELAY_MS: '0',
    });
    base = `http://localhost:${new URL(system.gatewayUrl).port}`;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.close();
    await dns?.close();
    await site?.close();
  });

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${system.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  /** A new session (the gateway caches a session's verification: a new one reads the role afresh). */
  const logIn = async (who: SignedIn, secret?: string): Promise<string> => {
    const login = await postJson(system, '/auth/login', { email: who.email, password: who.password });
    const answer = (await login.json()) as { data: { token?: string; challenge?: string } };
    if (!secret) return rememberSecret(answer.data.token!);
    const verified = await postJson(system, '/auth/2fa/verify', {
      challenge: answer.data.challenge,
      code: totpCode(secret),
    });
    return rememberSecret(((await verified.json()) as { data: { token: string } }).data.token);
  };

  /** The owner's finished `audit_review` run of DOMAIN, paid from credit. */
  async function reviewRun(owner: SignedIn, operatorEmail: string): Promise<string> {
    const me = await call('GET', '/v1/account', owner.session);
    const granted = await grantCredit(
      commandEnv(system),
      me.body.data.account_id,
      200_000_000,
      'e2e',
      operatorEmail,
    );
    expect(granted.code).toBe(0);
    const added = await call('POST', '/v1/analysis/domains', owner.session, { domain: DOMAIN });
    dns.zone.TXT.set(added.body.data.verification.name, [added.body.data.verification.value]);
    expect(
      (await call('GET', `/v1/analysis/verify?domain=${DOMAIN}`, owner.session)).body.data.verified,
    ).toBe(true);
    const authorized = await call('POST', '/v1/audit/authorize', owner.session, {
      domain: DOMAIN,
      attestation: { owner: true, name: 'Ada Owner' },
    });
    expect(authorized.status).toBe(201);
    const run = await call('POST', '/v1/analysis/run', owner.session, {
      domain: DOMAIN,
      tier: 'audit_review',
    });
    expect(run.status).toBe(201);
    const id = run.body.data.id as string;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const runs = await call('GET', `/v1/analysis/reports?domain=${DOMAIN}`, owner.session);
      const status = runs.body.data.find((r: { id: string }) => r.id === id)?.status;
      if (status === 'succeeded') return id;
      if (status === 'failed' || Date.now() > deadline) throw new Error(`run ${id} ended ${status}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * The operator role granted by identity:admin: refused before the grant, then until TOTP is on;
   * the session of a sign-in with a code.
   */
  async function grantedOperator(operator: SignedIn): Promise<string> {
    const plain = await call('GET', '/v1/operator/reviews', operator.session);
    expect(plain.status).toBe(403);
    expect(plain.body.error_category).toBe('operator_role_required');
    const grant = await runScript(
      'services/identity/scripts/admin.ts',
      ['grant-operator', operator.email, '--bootstrap', '--reason', 'console test'],
      { DATABASE_URL: system.env.DATABASE_URL! },
    );
    expect(grant.code).toBe(0);
    const withoutTotp = await logIn(operator);
    const refused = await call('GET', '/v1/operator/reviews', withoutTotp);
    expect(refused.status).toBe(403);
    expect(refused.body.error_category).toBe('operator_totp_required');
    const enrolled = await call('POST', '/v1/account/2fa/enrol', withoutTotp, {
      password: operator.password,
    });
    const secret = enrolled.body.data.secret as string;
    expect(
      (await call('POST', '/v1/account/2fa/activate', withoutTotp, { code: totpCode(secret) })).status,
    ).toBe(200);
    // A code is accepted once: the sign-in waits for the next period.
    await new Promise((r) => setTimeout(r, 30_000 - (Date.now() % 30_000) + 500));
    return logIn(operator, secret);
  }

  it('grants the role by command, refuses the console without it and without TOTP, and records a review in the browser that the owner then reads', async () => {
    const owner = await signedInAccount(system, smtp, 'owner');
    const operator = await signedInAccount(system, smtp, 'operator');
    const nickname = `desk-${Date.now().toString(36)}`;
    expect((await call('PUT', '/v1/account/nickname', operator.session, { nickname })).status).toBe(200);

    const operatorSession = await grantedOperator(operator);

    const runId = await reviewRun(owner, operator.email);
    const pending = await call('GET', `/v1/analysis/report/${runId}`, owner.session);
    expect(pending.body.data.review).toMatchObject({ status: 'pending', due_at: expect.any(String) });

    const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
    await context.addCookies([{ name: 'meridian_session', value: operatorSession, url: base }]);
    const page = await context.newPage();
    await page.goto(`${base}/#/operator`);
    await page.getByRole('heading', { name: 'Operator console' }).waitFor();
    await page.getByRole('link', { name: 'Operator', exact: true }).waitFor();
    await check(page, 'operator-01-console');
    await page.getByRole('link', { name: `Open ${DOMAIN}` }).click();
    await page.getByRole('heading', { name: `Review of ${DOMAIN}` }).waitFor();
    expect(await page.getByTestId('review-state').textContent()).toMatch(/^Pending, due /);
    await check(page, 'operator-02-review');
    const note = 'Checked by hand: the missing CSP is real; nothing else needs action.';
    await page.getByLabel('Review (the owner reads it)').fill(note);
    await page.getByRole('button', { name: 'Record review and mark done' }).click();
    await page.getByText(`Reviewed by ${nickname}`).waitFor();

    // Goodwill credit for the owner from the console's money section, confirmed in words first.
    await page.getByRole('link', { name: 'Back to the console' }).click();
    await page.getByRole('heading', { name: 'Credit and deposits' }).waitFor();
    // Pay-per-call payments reconciliation left open, asked of x402 through billing.
    await page.getByTestId('x402-unreconciled').getByText('No pay-per-call payment is left open.').waitFor();
    const notOperator = await call('GET', '/v1/operator/billing/x402-unreconciled', owner.session);
    expect([notOperator.status, notOperator.body.error_category]).toEqual([403, 'operator_role_required']);
    const credits = async () =>
      (await call('GET', '/v1/credits', owner.session)).body.balance_atomic as number;
    const people = { owner, operatorName: `${operator.email} (${nickname})` };
    await grantWithConfirmation(page, people, credits);
    await page.reload();
    await logAndGrants(page, people);
    await context.close();

    const done = await call('GET', `/v1/analysis/report/${runId}`, owner.session);
    expect(done.body.data.review).toMatchObject({ status: 'done', note, author: nickname });
    const pdf = await fetch(`${system.gatewayUrl}/v1/analysis/report/${runId}/pdf`, {
      headers: { authorization: `Bearer ${owner.session}` },
    });
    expect(pdf.status).toBe(200);
    const link = await call('POST', `/v1/analysis/report/${runId}/share`, owner.session, {});
    const shared = await fetch(`${system.gatewayUrl}/v1/analysis/shared/${link.body.data.token}`, {
      headers: { accept: 'text/html' },
    });
    expect(await shared.text()).toContain(`Human review by ${nickname}`);
    const mail = await mailTo(smtp, owner.email, 2);
    expect(mail.text).toContain(`${nickname} reviewed the audit of ${DOMAIN}`);

    // The owner's own report page in the portal shows the review and its author too.
    const ownerContext = await browser.newContext();
    await ownerContext.addCookies([{ name: SESSION_COOKIE, value: owner.session, url: base }]);
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(`${base}/#/report/${encodeURIComponent(runId)}`);
    await ownerPage.getByTestId('review').getByText(`Reviewed by ${nickname}`).waitFor();
    await ownerPage.getByTestId('review').getByText(note).waitFor();
    await check(ownerPage, 'operator-04-owner-report');
    await ownerContext.close();
  }, 240_000);
});
