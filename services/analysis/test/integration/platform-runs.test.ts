// The analysis platform's runs as paid and started: the entitlement from billing, one charge per
// run, the trace streamed, subscription and deposit payments, and the refusals before any charge.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { newEvent } from '@meridian/bus';
import { EVENTS } from '@meridian/contracts';
import { startPlatform, type Platform } from './platform-harness.js';
import { RUN_PRICE, platformCalls } from './support/platform-calls.js';

describe('analysis platform: runs paid and started', () => {
  let h: Platform;
  const { sql, get, post, settled } = platformCalls(() => h);

  beforeAll(async () => {
    h = await startPlatform('analysis_platform_runs', {
      RUN_TIMEOUT_MS: '2500',
      RUN_QUEUED_PER_ACCOUNT: '20',
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('runs', () => {
    it('answers the entitlement from billing: list prices, and a subscription covering its tier and lower', async () => {
      const account = randomUUID();
      const before = await get(account, '/v1/analysis/entitlement');
      expect(before.status).toBe(200);
      expect(before.body.data.tiers).toEqual([
        expect.objectContaining({
          tier: 'audit_base',
          price_atomic: RUN_PRICE.audit_base,
          charge_atomic: RUN_PRICE.audit_base,
          covered_by_subscription: false,
        }),
        expect.objectContaining({
          tier: 'audit_secure',
          price_atomic: RUN_PRICE.audit_secure,
          covered_by_subscription: false,
        }),
        expect.objectContaining({ tier: 'audit_review', covered_by_subscription: false }),
      ]);
      await h.grant(account, 500_000_000);
      await h.subscribe(account, 'audit_secure');
      const after = (await get(account, '/v1/analysis/entitlement')).body.data.tiers;
      expect(after.map((t: { charge_atomic: number | null }) => t.charge_atomic)).toEqual([0, 0, 99_000_000]);
    });

    it('charges credit once per run (Idempotency-Key names the run), executes it on a worker and stores the trace and report', async () => {
      const account = randomUUID();
      await h.grant(account, 15_000_000);
      await h.verified(account, 'paid.example');
      const key = randomUUID();
      const first = await post(
        account,
        '/v1/analysis/run',
        { domain: 'paid.example', tier: 'audit_base' },
        { 'Idempotency-Key': key },
      );
      expect(first.status).toBe(201);
      expect(first.body.data).toMatchObject({
        status: 'queued',
        payment: 'credit',
        amount_atomic: RUN_PRICE.audit_base,
      });
      expect(first.body.data.id).toMatch(/^run-[0-9a-f-]{36}$/);
      const again = await post(
        account,
        '/v1/analysis/run',
        { domain: 'paid.example', tier: 'audit_base' },
        { 'Idempotency-Key': key },
      );
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
      expect(
        (
          await post(
            account,
            '/v1/analysis/run',
            { domain: 'paid.example', tier: 'audit_secure' },
            { 'Idempotency-Key': key },
          )
        ).status,
      ).toBe(409);
      expect(
        (
          await post(
            account,
            '/v1/analysis/run',
            { domain: 'paid.example', tier: 'audit_base', payment: 'deposit' },
            { 'Idempotency-Key': key },
          )
        ).status,
      ).toBe(409);
      expect(await h.balance(account)).toBe(15_000_000 - RUN_PRICE.audit_base);

      const run = await settled(account, 'paid.example', first.body.data.id);
      expect(run).toMatchObject({ status: 'succeeded', attempts: 1, grade: 'A-', score: 90 });
      const { rows } = await sql.query('select report from analysis.runs where id = $1', [
        first.body.data.id,
      ]);
      expect(rows[0]!.report).toMatchObject({
        run_id: first.body.data.id,
        status: 'succeeded',
        domain: 'paid.example',
      });
      const trace = await get(account, `/v1/analysis/report/${first.body.data.id}/trace`);
      expect(trace.status).toBe(200);
      expect(trace.body.data.map((e: { stage: string; status: string }) => `${e.stage}:${e.status}`)).toEqual(
        ['run:started', 'dns:started', 'dns:finished', 'run:finished'],
      );
      expect(trace.body.data.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4]);

      const short = await post(account, '/v1/analysis/run', { domain: 'paid.example', tier: 'audit_base' });
      expect(short.status).toBe(402);
      const none = await sql.query('select count(*)::int as n from analysis.runs where domain = $1', [
        'paid.example',
      ]);
      expect(none.rows[0]!.n).toBe(1);
    });

    it('streams the trace as server-sent events while the run executes and ends the stream when it finishes', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'slow.example');
      h.behaviours.set('slow.example', { delayMs: 1500 });
      const made = await post(account, '/v1/analysis/run', { domain: 'slow.example', tier: 'audit_base' });
      const res = await request(h.a.app)
        .get(`/v1/analysis/report/${made.body.data.id}/trace`)
        .set({ ...(await h.as(account)), Accept: 'text/event-stream' })
        .buffer(true)
        .parse((response, done) => {
          let text = '';
          response.on('data', (c: Buffer) => (text += c.toString()));
          response.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const body = res.body as string;
      expect(body).toContain('event: trace');
      expect(body).toContain('"stage":"dns"');
      expect(body.trim().split('\n\n').at(-1)).toBe(
        `event: end\ndata: {"run_id":"${made.body.data.id}","status":"succeeded"}`,
      );
    });

    it('runs a subscription-covered tier without a charge, and quotes a deposit that starts when billing announces it paid', async () => {
      const account = randomUUID();
      await h.grant(account, 100_000_000);
      await h.subscribe(account, 'audit_base');
      const balance = await h.balance(account);
      await h.verified(account, 'covered.example');
      const covered = await post(account, '/v1/analysis/run', {
        domain: 'covered.example',
        tier: 'audit_base',
      });
      expect(covered.status).toBe(201);
      expect(covered.body.data).toMatchObject({
        status: 'queued',
        payment: 'subscription',
        amount_atomic: 0,
      });
      expect(await h.balance(account)).toBe(balance);

      const other = randomUUID();
      await h.verified(other, 'deposit.example');
      const quoted = await post(other, '/v1/analysis/run', {
        domain: 'deposit.example',
        tier: 'audit_base',
        payment: 'deposit',
      });
      expect(quoted.status).toBe(201);
      expect(quoted.body.data).toMatchObject({
        status: 'awaiting_payment',
        payment: 'deposit',
        pay: {
          amount_atomic: RUN_PRICE.audit_base,
          memo: quoted.body.data.id,
          deposit_address: 'Dep1t5WaLLet1111111111111111111111111111111',
        },
      });
      await h.client.publish(
        newEvent('billing', EVENTS.billingOrderPaid, {
          order_id: quoted.body.data.id,
          account_id: other,
          amount_atomic: RUN_PRICE.audit_base,
          paid_by: 'deposit',
          tx_signature: '5sig',
          paid_at: new Date().toISOString(),
        }),
      );
      expect(await settled(other, 'deposit.example', quoted.body.data.id)).toMatchObject({
        status: 'succeeded',
      });
    });

    it('refuses an unverified domain, and an active tier without an authorization or whose TXT record is gone', async () => {
      const account = randomUUID();
      await h.grant(account, 100_000_000);
      await post(account, '/v1/analysis/domains', { domain: 'unproved.example' });
      const unverified = await post(account, '/v1/analysis/run', {
        domain: 'unproved.example',
        tier: 'audit_base',
      });
      expect(unverified.status).toBe(400);
      expect(unverified.body.error_category).toBe('domain_not_verified');
      await h.verified(account, 'active.example');
      const unauthorized = await post(account, '/v1/analysis/run', {
        domain: 'active.example',
        tier: 'audit_secure',
      });
      expect(unauthorized.status).toBe(403);
      expect(unauthorized.body.error_category).toBe('authorization_required');
      expect(
        (
          await post(account, '/v1/audit/authorize', {
            domain: 'active.example',
            attestation: { owner: true, name: 'Ada Owner' },
          })
        ).status,
      ).toBe(201);
      h.dns.zone.TXT.delete('_meridian-verify.active.example');
      const gone = await post(account, '/v1/analysis/run', {
        domain: 'active.example',
        tier: 'audit_secure',
      });
      expect(gone.status).toBe(400);
      expect(gone.body.detail).toMatch(/no longer verified/);
      expect(await h.balance(account)).toBe(100_000_000);
      await h.verified(account, 'active.example');
      const secure = await post(account, '/v1/analysis/run', {
        domain: 'active.example',
        tier: 'audit_secure',
      });
      expect(secure.status).toBe(201);
      await settled(account, 'active.example', secure.body.data.id);
      const input = h.seen.find((s) => s.run_id === secure.body.data.id)!;
      expect(input.authorization).toMatchObject({ scope: [] });
      expect(Date.parse(input.authorization!.ends_at) - Date.parse(input.authorization!.starts_at)).toBe(
        30 * 86_400_000,
      );
    });
  });
});
