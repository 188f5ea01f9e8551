import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, STREAMS, billingPlanChangedSchema, type CloudEvent } from '@meridian/contracts';
import { buyPeriod } from '../../src/flows/buy-period.js';
import { announceLapsedPlans } from '../../src/jobs/plan-lapse.js';
import { startBilling, type Billing } from './harness.js';

const REVIEW = 399_000_000;
const HOUR = 3_600_000;

describe('switching tiers buys nothing for free', () => {
  let billing: Billing;
  const planEvents: Array<{ account_id: string; plan: string; changed_at: string }> = [];
  let closeConsumer: () => Promise<void>;

  beforeAll(async () => {
    billing = await startBilling('billing_tier_switch');
    const consumer = await billing.client.consume({
      stream: STREAMS.billing.name,
      durable: 'billing_test__switch_plan_changed',
      filterSubject: EVENTS.billingPlanChanged,
      handler: async (event: CloudEvent<never>) => {
        planEvents.push(billingPlanChangedSchema.parse(event.data));
      },
    });
    closeConsumer = () => consumer.close();
  });
  afterEach(async () => billing.assertBalancesMatchLedger());
  afterAll(async () => {
    await closeConsumer?.();
    await billing?.close();
  });

  const subscribe = async (accountId: string, tier: string) =>
    request(billing.app)
      .post('/v1/audit/subscribe')
      .set(await billing.as(accountId))
      .send({ tier });
  const credits = async (accountId: string) =>
    (
      await request(billing.app)
        .get('/v1/credits')
        .set(await billing.as(accountId))
    ).body as {
      balance_atomic: number;
      entries: Array<{ reason: string; delta_atomic: number; ref: string | null }>;
    };

  it('keeps the reviewed tier to the end of the period it paid when switching down, and gives nothing back', async () => {
    const account = randomUUID();
    await billing.grant(account, 1_000_000_000);
    expect((await subscribe(account, 'audit_base')).status).toBe(200);
    const up = await subscribe(account, 'audit_review');
    expect(up.body.data).toMatchObject({ tier: 'audit_review', active: true, scheduled: null });
    // The review runs commissioned now are covered by audit_review; then the attacker switches down.
    const down = await subscribe(account, 'audit_base');
    expect(down.status).toBe(200);
    expect(down.body.data).toMatchObject({
      tier: 'audit_review',
      expires_at: up.body.data.expires_at,
      scheduled: { tier: 'audit_base', starts_at: up.body.data.expires_at },
    });
    const read = await request(billing.app)
      .get('/v1/audit/subscription')
      .set(await billing.as(account));
    expect(read.body.data).toEqual(down.body.data);
    const { balance_atomic, entries } = await credits(account);
    // Money in 1000 USD; out: at least the review month, and the base month scheduled after it.
    expect(balance_atomic).toBeLessThanOrEqual(1_000_000_000 - REVIEW - 49_000_000);
    expect(entries.map((e) => e.reason)).toEqual([
      'subscription',
      'refund',
      'subscription',
      'subscription',
      'admin_grant',
    ]);
    // The only give-back is the upgrade's plan change credit, for the base month cut short.
    expect(entries[1]!.delta_atomic).toBeLessThanOrEqual(49_000_000);
    expect(entries[1]!.ref).toBe('plan change credit: audit_base to audit_review');
  });

  it('leaves no balance above one payment of the dearest tier after up-down-up cycles in a period', async () => {
    const account = randomUUID();
    const money = 2_000_000_000;
    await billing.grant(account, money);
    const start = new Date();
    const tiers = [
      'audit_base',
      'audit_review',
      'audit_base',
      'audit_review',
      'audit_secure',
      'audit_review',
    ];
    for (const [i, tier] of tiers.entries()) {
      const bought = await buyPeriod(
        billing.deps,
        {
          account_id: account,
          product: 'audit',
          tier,
          item: `audit:${tier}`,
          idempotency_key: `cycle-${i}`,
          actor: `account:${account}`,
        },
        new Date(start.getTime() + i * HOUR),
      );
      expect(bought.ok || bought.code === 'conflict').toBe(true);
    }
    expect((await credits(account)).balance_atomic).toBeLessThanOrEqual(money - REVIEW);
  });

  it('applies a data plan switched down when the paid period ends, announcing the scheduled plan', async () => {
    const account = randomUUID();
    await billing.grant(account, 300_000_000);
    const plan = async (name: string) =>
      request(billing.app)
        .post('/v1/billing/plan')
        .set(await billing.as(account))
        .send({ plan: name });
    const ultra = await plan('ultra');
    const down = await plan('basic');
    expect(down.body.data).toMatchObject({
      plan: 'ultra',
      scheduled: { tier: 'basic', starts_at: ultra.body.data.expires_at },
    });
    expect((await credits(account)).balance_atomic).toBe(300_000_000 - 199_000_000 - 19_000_000);
    const afterExpiry = new Date(new Date(ultra.body.data.expires_at).getTime() + 1000);
    expect(await announceLapsedPlans(billing.deps, afterExpiry)).toBeGreaterThanOrEqual(1);
    await waitFor(() => planEvents.some((e) => e.account_id === account && e.plan === 'basic'), {
      what: 'the scheduled plan announced',
    });
    const basic = planEvents.find((e) => e.account_id === account && e.plan === 'basic')!;
    expect(basic.changed_at).toBe(ultra.body.data.expires_at);
  });
});
