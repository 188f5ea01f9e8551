import { expect } from '@jest/globals';
import { z } from 'zod';
import {
  billingHistoryRowSchema,
  creditsAnswerSchema,
  planSubscriptionSchema,
  pricesSchema,
  subscriptionSchema,
} from '@meridian/contracts';
import { PRO_METRIC, TOP_UP, enveloped, read, until, type Journey } from './journey.js';

/** The journey's money: credit topped up on chain, spent on a plan and a subscription, read back as history. */

/** Tops the credit up by an on-chain deposit to the address and memo billing shows. */
export async function topUpByDeposit(j: Journey): Promise<void> {
  const before = await read(await j.get('/v1/credits'), creditsAnswerSchema);
  expect(before).toMatchObject({
    balance_atomic: 0,
    entries: [],
    topup: {
      deposit_address: j.depositAddress,
      memo: `top-${j.accountId}`,
      network: j.facilitator.network,
      asset: j.facilitator.mint,
    },
  });
  // The person's wallet pays the deposit address with the memo the portal shows.
  j.depositSignature = await j.facilitator.transfer({
    from: j.wallet,
    to: before.topup.deposit_address,
    amount: TOP_UP,
    memo: before.topup.memo,
  });
  // Billing's watcher reads the chain every 300 ms.
  const deadline = Date.now() + 20_000;
  let credited = before;
  while (credited.balance_atomic === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    credited = await read(await j.get('/v1/credits'), creditsAnswerSchema);
  }
  expect(credited.balance_atomic).toBe(TOP_UP);
  expect(credited.balance_usd).toBe(300);
  expect(credited.entries).toEqual([
    expect.objectContaining({
      reason: 'topup_usdc',
      direction: 'credit',
      delta_atomic: TOP_UP,
      actor: 'deposit-watcher',
    }),
  ]);
  expect(JSON.stringify(credited.entries[0])).toContain(j.depositSignature);
}

/** Buys the pro data plan (the key then reads the pro metric) and an audit subscription from credit. */
export async function subscribeFromCredit(j: Journey): Promise<void> {
  const prices = (await read(await fetch(j.url('/v1/billing/prices')), enveloped(pricesSchema))).data;
  const pro = prices.plans.find((p) => p.plan === 'pro')!;
  const auditBase = prices.audit_subscriptions.find((s) => s.tier === 'audit_base')!;

  const plan = await j.post('/v1/billing/plan', { plan: 'pro' });
  expect(plan.status).toBe(200);
  expect((await read(plan, enveloped(planSubscriptionSchema))).data).toMatchObject({
    plan: 'pro',
    active: true,
  });
  // billing announces the plan, identity applies it and tells the gateway: the key now reads the pro metric.
  const opened = await until(
    () => j.withKey(PRO_METRIC),
    (res) => res.status === 200,
  );
  expect(opened.status).toBe(200);
  expect(opened.headers.get('ratelimit-limit')).toBe(String(pro.rate_limit_per_minute));
  const chain = (await opened.json()) as { data: { underlying: string; options: unknown[] } };
  expect(chain.data.underlying).toBe('BTC');
  expect(chain.data.options.length).toBeGreaterThan(0);
  expect(await (await j.get('/v1/account')).json()).toMatchObject({ data: { plan: 'pro' } });

  const subscribed = await j.post('/v1/audit/subscribe', { tier: 'audit_base' });
  expect(subscribed.status).toBe(200);
  expect((await read(subscribed, enveloped(subscriptionSchema))).data).toMatchObject({
    tier: 'audit_base',
    active: true,
  });
  const credits = await read(await j.get('/v1/credits'), creditsAnswerSchema);
  expect(credits.balance_atomic).toBe(TOP_UP - pro.monthly_price_atomic! - auditBase.price_atomic!);
}

/** Reads the billing history: the top-up, the plan, the subscription and the booking, page by page. */
export async function readBillingHistory(j: Journey): Promise<void> {
  const res = await j.get('/v1/account/billing/history');
  expect(res.status).toBe(200);
  const history = (await res.json()) as { data: unknown[]; meta: { truncated: boolean } };
  const rows = z.array(billingHistoryRowSchema).parse(history.data);
  expect(history.meta.truncated).toBe(false);
  const prices = (await read(await fetch(j.url('/v1/billing/prices')), enveloped(pricesSchema))).data;
  const price = {
    plan: prices.plans.find((p) => p.plan === 'pro')!.monthly_price_atomic!,
    subscription: prices.audit_subscriptions.find((s) => s.tier === 'audit_base')!.price_atomic!,
    booking: prices.consulting.find((c) => c.kind === 'consulting')!.price_atomic!,
  };
  // Newest first.
  expect(rows.map((r) => [r.reason, r.direction, r.amount_atomic, r.balance_delta_atomic])).toEqual([
    ['booking', 'debit', price.booking, -price.booking],
    ['subscription', 'debit', price.subscription, -price.subscription],
    ['data_plan', 'debit', price.plan, -price.plan],
    ['topup_usdc', 'credit', TOP_UP, TOP_UP],
  ]);
  expect(rows[0]).toMatchObject({ kind: 'ledger', ref: j.bookingId, tx_signature: null });
  expect(rows[1]!.ref).toMatch(/^sub-/);
  expect(rows[2]!.ref).toMatch(/^sub-/);
  expect(rows[3]).toMatchObject({ kind: 'ledger', tx_signature: j.depositSignature });
  const credits = await read(await j.get('/v1/credits'), creditsAnswerSchema);
  expect(credits.balance_atomic).toBe(rows.reduce((sum, r) => sum + r.balance_delta_atomic, 0));
  expect(credits.balance_atomic).toBe(TOP_UP - price.plan - price.subscription - price.booking);
  // The ledger behind it, entry for entry.
  expect(credits.entries.map((e) => `ledger:${e.id}`)).toEqual(rows.map((r) => r.id));

  // Page by page: two rows, then the cursor resumes after them.
  const page = (query: string) =>
    j
      .get(`/v1/account/billing/history?${query}`)
      .then(
        async (r) => (await r.json()) as { data: { id: string }[]; meta: { next_cursor: string | null } },
      );
  const first = await page('limit=2');
  expect(first.data.map((r) => r.id)).toEqual(rows.slice(0, 2).map((r) => r.id));
  expect(first.meta.next_cursor).toEqual(expect.any(String));
  const second = await page(`limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`);
  expect(second.data.map((r) => r.id)).toEqual(rows.slice(2).map((r) => r.id));
}
