import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, STREAMS, billingPlanChangedSchema, type CloudEvent } from '@meridian/contracts';
import { announceLapsedPlans } from '../../src/jobs/plan-lapse.js';
import { startBilling, type Billing } from './harness.js';

describe('subscriptions and data plans bought from credit', () => {
  let billing: Billing;
  const planEvents: Array<{ account_id: string; plan: string; changed_at: string }> = [];
  let closeConsumer: () => Promise<void>;

  beforeAll(async () => {
    billing = await startBilling('billing_subscriptions');
    const consumer = await billing.client.consume({
      stream: STREAMS.billing.name,
      durable: 'billing_test__plan_changed',
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

  const subscribe = async (accountId: string, tier: string, key?: string) =>
    request(billing.app)
      .post('/v1/audit/subscribe')
      .set(await billing.as(accountId))
      .set(key ? { 'Idempotency-Key': key } : {})
      .send({ tier });
  const balance = async (accountId: string) =>
    (
      await request(billing.app)
        .get('/v1/credits')
        .set(await billing.as(accountId))
    ).body.balance_atomic as number;

  it('subscribes from credit for a month and shows tier, grant and expiry', async () => {
    const account = randomUUID();
    await billing.grant(account, 100_000_000);
    const res = await subscribe(account, 'audit_base');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tier: 'audit_base', active: true });
    const granted = new Date(res.body.data.granted_at);
    const expires = new Date(res.body.data.expires_at);
    expect(expires.getTime() - granted.getTime()).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect(expires.getTime() - granted.getTime()).toBeLessThanOrEqual(31 * 86_400_000);
    expect(await balance(account)).toBe(100_000_000 - 49_000_000);
    const read = await request(billing.app)
      .get('/v1/audit/subscription')
      .set(await billing.as(account));
    expect(read.body.data).toEqual(res.body.data);
    const entries = (
      await request(billing.app)
        .get('/v1/credits')
        .set(await billing.as(account))
    ).body.entries;
    expect(entries[0]).toMatchObject({
      reason: 'subscription',
      delta_atomic: -49_000_000,
      direction: 'debit',
    });
  });

  it('answers 402 and writes nothing when credit is short', async () => {
    const account = randomUUID();
    await billing.grant(account, 10_000_000);
    const res = await subscribe(account, 'audit_secure');
    expect(res.status).toBe(402);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).toMatchObject({
      error_category: 'insufficient_credit',
      detail: 'The credit balance is $10.00; this needs $149.00.',
      balance_atomic: 10_000_000,
      needed_atomic: 149_000_000,
    });
    expect(await balance(account)).toBe(10_000_000);
    const read = await request(billing.app)
      .get('/v1/audit/subscription')
      .set(await billing.as(account));
    expect(read.body.data).toEqual({
      tier: null,
      granted_at: null,
      expires_at: null,
      active: false,
      scheduled: null,
    });
  });

  it('renews ahead on the same tier, replays a retried purchase and gives back the unused part on a switch', async () => {
    const account = randomUUID();
    await billing.grant(account, 400_000_000);
    const first = await subscribe(account, 'audit_base', 'buy-1');
    const retried = await subscribe(account, 'audit_base', 'buy-1');
    expect(retried.body.data).toEqual(first.body.data);
    expect(await balance(account)).toBe(400_000_000 - 49_000_000);
    const renewed = await subscribe(account, 'audit_base', 'buy-2');
    expect(renewed.body.data.granted_at).toBe(first.body.data.granted_at);
    expect(new Date(renewed.body.data.expires_at).getTime()).toBeGreaterThan(
      new Date(first.body.data.expires_at).getTime(),
    );
    expect((await subscribe(account, 'audit_secure', 'buy-3')).status).toBe(409);

    const switcher = randomUUID();
    await billing.grant(switcher, 200_000_000);
    await subscribe(switcher, 'audit_base');
    const switched = await subscribe(switcher, 'audit_secure');
    expect(switched.body.data).toMatchObject({ tier: 'audit_secure', active: true });
    const entries = (
      await request(billing.app)
        .get('/v1/credits')
        .set(await billing.as(switcher))
    ).body.entries;
    expect(entries.map((e: { reason: string }) => e.reason)).toEqual([
      'refund',
      'subscription',
      'subscription',
      'admin_grant',
    ]);
    // Moments after buying, nearly all of the first month comes back.
    expect(entries[0].delta_atomic).toBeGreaterThan(48_990_000);
    expect(entries[0].delta_atomic).toBeLessThanOrEqual(49_000_000);
  });

  it('answers purchases made at once one after the other, never a 5xx, never overlapping periods', async () => {
    const account = randomUUID();
    await billing.grant(account, 2_000_000_000);
    // Found by the fuzzer: a purchase that waited for another's lock took its instant before waiting,
    // then started (or ended) periods before the other's and gave back more than was paid.
    const answers = await Promise.all(
      ['audit_base', 'audit_base', 'audit_secure', 'audit_base', 'audit_secure', 'audit_base'].map((tier) =>
        subscribe(account, tier),
      ),
    );
    for (const a of answers) expect([200, 409]).toContain(a.status);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    const entries = (
      await request(billing.app)
        .get('/v1/credits')
        .set(await billing.as(account))
    ).body.entries as { reason: string; delta_atomic: number; ref: string }[];
    // No give-back larger than a month's price.
    for (const e of entries.filter((x) => x.reason === 'refund'))
      expect(e.delta_atomic).toBeLessThanOrEqual(149_000_000);
  });

  it('answers a double-sent purchase once and refuses its key on another tier or plan', async () => {
    const account = randomUUID();
    await billing.grant(account, 400_000_000);
    const [a, b] = await Promise.all([
      subscribe(account, 'audit_base', 'click-1'),
      subscribe(account, 'audit_base', 'click-1'),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.data).toEqual(a.body.data);
    expect(await balance(account)).toBe(400_000_000 - 49_000_000);
    const other = await subscribe(account, 'audit_secure', 'click-1');
    expect(other.status).toBe(409);
    expect(other.body.detail).toContain('Idempotency-Key');
    const plan = (body: object, key: string) =>
      billing
        .as(account)
        .then((auth) =>
          request(billing.app).post('/v1/billing/plan').set(auth).set({ 'Idempotency-Key': key }).send(body),
        );
    expect((await plan({ plan: 'basic' }, 'plan-1')).status).toBe(200);
    expect((await plan({ plan: 'basic' }, 'plan-1')).status).toBe(200);
    expect((await plan({ plan: 'pro' }, 'plan-1')).status).toBe(409);
    expect(await balance(account)).toBe(400_000_000 - 49_000_000 - 19_000_000);
  });

  it('refuses a purchase body with a field it does not name', async () => {
    const account = randomUUID();
    await billing.grant(account, 400_000_000);
    const sub = await request(billing.app)
      .post('/v1/audit/subscribe')
      .set(await billing.as(account))
      .send({ tier: 'audit_base', months: 1e20 });
    expect(sub.status).toBe(400);
    expect(JSON.stringify(sub.body)).toContain('months');
    const plan = await request(billing.app)
      .post('/v1/billing/plan')
      .set(await billing.as(account))
      .send({ plan: 'basic', months: 12 });
    expect(plan.status).toBe(400);
    expect(await balance(account)).toBe(400_000_000);
  });

  it('refuses an unknown tier and a malformed body', async () => {
    const account = randomUUID();
    expect((await subscribe(account, 'audit_gold')).status).toBe(400);
    const bad = await request(billing.app)
      .post('/v1/billing/plan')
      .set(await billing.as(account))
      .send({ plan: 'free' });
    expect(bad.status).toBe(400);
  });

  it('announces a data plan bought from credit, and the return to free when it lapses', async () => {
    const account = randomUUID();
    await billing.grant(account, 100_000_000);
    const res = await request(billing.app)
      .post('/v1/billing/plan')
      .set(await billing.as(account))
      .send({ plan: 'pro' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ plan: 'pro', active: true });
    await waitFor(() => planEvents.some((e) => e.account_id === account && e.plan === 'pro'), {
      what: 'plan pro announced',
    });
    const read = await request(billing.app)
      .get('/v1/billing/plan')
      .set(await billing.as(account));
    expect(read.body.data.plan).toBe('pro');

    const afterExpiry = new Date(new Date(res.body.data.expires_at).getTime() + 1000);
    expect(await announceLapsedPlans(billing.deps, afterExpiry)).toBeGreaterThanOrEqual(1);
    expect(await announceLapsedPlans(billing.deps, afterExpiry)).toBe(0);
    await waitFor(() => planEvents.some((e) => e.account_id === account && e.plan === 'free'), {
      what: 'plan free announced',
    });
    expect(planEvents.find((e) => e.account_id === account && e.plan === 'free')!.changed_at).toBe(
      res.body.data.expires_at,
    );
  });
});
