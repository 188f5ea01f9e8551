import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSmtp } from '@meridian/test-peers';
import { createKey, commandEnv, grantCredit, operatorOf, postJson, signedInAccount } from './src/accounts.js';
import { startSystem, type System } from './src/system.js';

/** Credit, subscriptions and data plans through the gateway, every service its own process. */
describe('billing through the gateway', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    system = await startSystem('e2e_billing', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: 'loopback',
      // Every hour bookable from an hour ahead, so the booking test does not depend on the weekday.
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await smtp?.close();
  });

  const get = (path: string, session: string) =>
    fetch(`${system.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${session}` } });
  const accountIdOf = async (session: string) =>
    ((await (await get('/v1/agent/whoami', session)).json()) as { data: { account_id: string } }).data
      .account_id;
  /** The operator's command line, against the system's database. */
  const grant = async (accountId: string, amount: number) =>
    grantCredit(
      commandEnv(system),
      accountId,
      amount,
      'e2e credit',
      await operatorOf(system, smtp, commandEnv(system)),
    );

  it("buys a data plan from credit, and the account's key reads what the plan opens", async () => {
    const { session } = await signedInAccount(system, smtp, 'planbuyer');
    const accountId = await accountIdOf(session);
    expect(await grant(accountId, 60_000_000)).toMatchObject({ code: 0 });
    const credits = await get('/v1/credits', session);
    expect(credits.status).toBe(200);
    expect(await credits.json()).toMatchObject({
      balance_atomic: 60_000_000,
      topup: { memo: `top-${accountId}` },
    });

    const key = await createKey(system, session);
    const chain = `${system.gatewayUrl}/v1/data/crypto/options/put_call_oi_ratio?entity=BTC`;
    expect((await fetch(chain, { headers: { 'x-api-key': key.key } })).status).toBe(403);

    const bought = await postJson(system, '/v1/billing/plan', { plan: 'pro' }, session);
    expect(bought.status).toBe(200);
    expect(await bought.json()).toMatchObject({ data: { plan: 'pro', active: true } });
    let status = 403;
    for (const until = Date.now() + 10_000; status === 403 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await fetch(chain, { headers: { 'x-api-key': key.key } })).status;
    }
    expect(status).toBe(200);
    expect(await (await get('/v1/account', session)).json()).toMatchObject({ data: { plan: 'pro' } });
    expect((await (await get('/v1/credits', session)).json()) as object).toMatchObject({
      balance_atomic: 11_000_000,
    });
  });

  it('subscribes to an audit tier, refuses what credit cannot pay, and keeps every account to its own rows', async () => {
    const owner = await signedInAccount(system, smtp, 'subscriber');
    const other = await signedInAccount(system, smtp, 'bystander');
    expect(await grant(await accountIdOf(owner.session), 50_000_000)).toMatchObject({ code: 0 });
    const short = await postJson(system, '/v1/audit/subscribe', { tier: 'audit_secure' }, owner.session);
    expect(short.status).toBe(402);
    expect(short.headers.get('content-type')).toContain('application/problem+json');
    const ok = await postJson(system, '/v1/audit/subscribe', { tier: 'audit_base' }, owner.session);
    expect(ok.status).toBe(200);
    expect(await (await get('/v1/audit/subscription', owner.session)).json()).toMatchObject({
      data: { tier: 'audit_base', active: true },
    });

    const mine = (await (await get('/v1/account/billing/history', owner.session)).json()) as {
      data: unknown[];
    };
    expect(mine.data).toHaveLength(2);
    const theirs = await get('/v1/account/billing/history', other.session);
    expect(((await theirs.json()) as { data: unknown[] }).data).toEqual([]);
    expect(await (await get('/v1/credits', other.session)).json()).toMatchObject({
      balance_atomic: 0,
      entries: [],
    });
    expect(await (await get('/v1/audit/subscription', other.session)).json()).toMatchObject({
      data: { active: false },
    });
    expect((await fetch(`${system.gatewayUrl}/v1/credits`)).status).toBe(401);
  });

  it('books a consulting slot from credit; the account gets the mail and the history the spend', async () => {
    const { session, email } = await signedInAccount(system, smtp, 'booker');
    expect(await grant(await accountIdOf(session), 150_000_000)).toMatchObject({ code: 0 });
    const start = new Date(Date.now() + 3 * 3_600_000);
    start.setUTCMinutes(0, 0, 0);
    const booked = await postJson(
      system,
      '/v1/consulting/bookings',
      { starts_at: start.toISOString(), topic: 'TLS' },
      session,
    );
    expect(booked.status).toBe(201);
    const booking = ((await booked.json()) as { data: { id: string; status: string } }).data;
    expect(booking.status).toBe('confirmed');
    const until = Date.now() + 15_000;
    while (!smtp.mails.some((m) => m.to === email && m.text.includes(booking.id)) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(smtp.mails.find((m) => m.to === email && m.text.includes(booking.id))?.text).toContain(
      'Topic:   TLS',
    );
    const history = (await (await get('/v1/account/billing/history', session)).json()) as {
      data: { reason: string; ref: string }[];
    };
    expect(history.data[0]).toMatchObject({ reason: 'booking', ref: booking.id });
    const recorded = await postJson(system, '/v1/requests', { kind: 'consultancy', detail: 'TLS' }, session);
    expect(await recorded.json()).toEqual({ ok: true, count: 1 });
  });
});
