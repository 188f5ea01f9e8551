import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CompiledQuery } from 'kysely';
import { newEvent } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS } from '@meridian/contracts';
import { runDueRescans } from '../../src/flows/rescan.js';
import { startPlatform, type Platform } from './platform-harness.js';

const RUN_PRICE = { audit_base: 9_000_000, audit_secure: 29_000_000 };

describe('analysis platform: domains, runs, workers, authorization, credentials, re-scans', () => {
  let h: Platform;
  /** Reads the service's tables as an operator would (the tests check what is stored). */
  const sql = {
    query: async (text: string, params: unknown[] = []) =>
      (await h.a.deps.db.executeQuery(CompiledQuery.raw(text, params))) as {
        rows: Array<Record<string, any>>;
      },
  };

  beforeAll(async () => {
    h = await startPlatform('analysis_platform', { RUN_TIMEOUT_MS: '2500', RUN_QUEUED_PER_ACCOUNT: '20' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const get = async (account: string, path: string) =>
    request(h.a.app)
      .get(path)
      .set(await h.as(account));
  const post = async (account: string, path: string, body: object, headers: Record<string, string> = {}) =>
    request(h.a.app)
      .post(path)
      .set({ ...(await h.as(account)), ...headers })
      .send(body);
  const runOf = async (account: string, domain: string, id: string) =>
    (await get(account, `/v1/analysis/reports?domain=${domain}`)).body.data.find(
      (r: { id: string }) => r.id === id,
    );
  const settled = async (account: string, domain: string, id: string) => {
    let run: { status: string } | undefined;
    await waitFor(
      async () => {
        run = await runOf(account, domain, id);
        // Settled: finished, and a refund it is owed asked of billing (that follows the failure).
        return (
          (run?.status === 'succeeded' || run?.status === 'failed') &&
          (run as { refund?: string }).refund !== 'pending'
        );
      },
      { what: `run ${id} settled`, timeoutMs: 30_000 },
    );
    return run as Record<string, unknown>;
  };

  describe('domains', () => {
    it('adds a bare hostname (IDN to punycode) with a 256-bit token and the TXT record, verifies it through DNS, and un-verifies a removed record', async () => {
      const account = randomUUID();
      const added = await post(account, '/v1/analysis/domains', { domain: 'Bücher.Example.' });
      expect(added.status).toBe(201);
      const domain = added.body.data;
      expect(domain).toMatchObject({ domain: 'xn--bcher-kva.example', status: 'pending', verified: false });
      expect(domain.verification.name).toBe('_meridian-verify.xn--bcher-kva.example');
      const token = domain.verification.value.replace('meridian-verify=', '');
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      expect((await post(account, '/v1/analysis/domains', { domain: 'xn--bcher-kva.example' })).status).toBe(
        200,
      );

      const before = await get(account, '/v1/analysis/verify?domain=xn--bcher-kva.example');
      expect(before.status).toBe(200);
      expect(before.body.data).toMatchObject({ verified: false, found: false });
      h.dns.zone.TXT.set(domain.verification.name, ['v=spf1 -all', domain.verification.value]);
      const after = await get(account, '/v1/analysis/verify?domain=bücher.example');
      expect(after.body.data).toMatchObject({ verified: true, status: 'verified', found: true });
      expect((await get(account, '/v1/analysis/domains')).body.data).toHaveLength(1);

      h.dns.zone.TXT.delete(domain.verification.name);
      expect(
        (await get(account, '/v1/analysis/verify?domain=xn--bcher-kva.example')).body.data.verified,
      ).toBe(false);
    });

    it('refuses what is not a bare hostname with a 400 that says why', async () => {
      const account = randomUUID();
      for (const domain of [
        'https://a.example',
        'a.example:8443',
        'a.example/path',
        'localhost',
        '10.0.0.5',
        '*.a.example',
        'a..example',
        '-a.example',
        '',
        'user@a.example',
      ]) {
        const res = await post(account, '/v1/analysis/domains', { domain });
        expect(res.status).toBe(400);
        expect(res.body.detail).toMatch(/domain/);
      }
      expect((await post(account, '/v1/analysis/domains', { domain: 'a.example', extra: 1 })).status).toBe(
        400,
      );
    });

    it('names the DNS provider from NS records with its setup help, and a generic help otherwise', async () => {
      const account = randomUUID();
      await post(account, '/v1/analysis/domains', { domain: 'www.cf-site.example' });
      await post(account, '/v1/analysis/domains', { domain: 'plain.example' });
      h.dns.zone.NS.set('cf-site.example', ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com']);
      const cf = await get(account, '/v1/analysis/dns-provider?domain=www.cf-site.example');
      expect(cf.status).toBe(200);
      expect(cf.body.data).toMatchObject({
        zone: 'cf-site.example',
        provider: { id: 'cloudflare', name: 'Cloudflare' },
      });
      expect(cf.body.data.help).toContain('TXT');
      h.dns.zone.NS.set('plain.example', ['ns-1.awsdns-01.org', 'ns-2.awsdns-02.co.uk']);
      expect(
        (await get(account, '/v1/analysis/dns-provider?domain=plain.example')).body.data.provider.id,
      ).toBe('route53');
      h.dns.zone.NS.set('plain.example', ['ns1.some-host.example']);
      const other = await get(account, '/v1/analysis/dns-provider?domain=plain.example');
      expect(other.body.data.provider).toBeNull();
      expect(other.body.data.help).toContain('_meridian-verify');
    });
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

    it('retries a run whose pipeline failed, and fails and refunds it once the attempts are spent', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'flaky.example');
      await h.verified(account, 'broken.example');
      h.behaviours.set('flaky.example', { failTimes: 1 });
      h.behaviours.set('broken.example', { failTimes: 99 });
      const flaky = await post(account, '/v1/analysis/run', { domain: 'flaky.example', tier: 'audit_base' });
      expect(await settled(account, 'flaky.example', flaky.body.data.id)).toMatchObject({
        status: 'succeeded',
        attempts: 2,
      });
      const broken = await post(account, '/v1/analysis/run', {
        domain: 'broken.example',
        tier: 'audit_base',
      });
      const failed = await settled(account, 'broken.example', broken.body.data.id);
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 3,
        error: 'pipeline_failed',
        refund: 'done',
      });
      expect(await h.balance(account)).toBe(20_000_000 - RUN_PRICE.audit_base);
    });

    it('fails a run whose target answers nothing at once, without a refund (not our failure)', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'dark.example');
      h.behaviours.set('dark.example', { unreachable: true });
      const made = await post(account, '/v1/analysis/run', { domain: 'dark.example', tier: 'audit_base' });
      const run = await settled(account, 'dark.example', made.body.data.id);
      expect(run).toMatchObject({ status: 'failed', attempts: 1, error: 'target_unreachable', refund: null });
      expect(await h.balance(account)).toBe(20_000_000 - RUN_PRICE.audit_base);
      const trace = await get(account, `/v1/analysis/report/${made.body.data.id}/trace`);
      expect(trace.body.data.at(-1)).toMatchObject({ stage: 'run', status: 'failed' });
      expect(trace.body.data.at(-1).message).toContain('no public address');
    });

    it('counts an attempt that outlives RUN_TIMEOUT_MS as failed, so a hung audit ends failed and refunded', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'hung.example');
      h.behaviours.set('hung.example', { delayMs: 6000 });
      const made = await post(account, '/v1/analysis/run', { domain: 'hung.example', tier: 'audit_base' });
      const run = await settled(account, 'hung.example', made.body.data.id);
      expect(run).toMatchObject({ status: 'failed', attempts: 3, error: 'pipeline_failed', refund: 'done' });
      expect(await h.balance(account)).toBe(20_000_000);
      const trace = await get(account, `/v1/analysis/report/${made.body.data.id}/trace`);
      expect(
        trace.body.data.filter((e: { message: string }) => e.message.includes('timed out')),
      ).toHaveLength(3);
    }, 60_000);

    it('shares the work between two workers', async () => {
      const account = randomUUID();
      await h.grant(account, 200_000_000);
      await h.verified(account, 'shared.example');
      h.behaviours.set('shared.example', { delayMs: 400 });
      const b = await h.replica();
      try {
        const ids: string[] = [];
        for (let i = 0; i < 8; i++)
          ids.push(
            (await post(account, '/v1/analysis/run', { domain: 'shared.example', tier: 'audit_base' })).body
              .data.id,
          );
        for (const id of ids) await settled(account, 'shared.example', id);
        const { rows } = await sql.query('select distinct worker from analysis.runs where id = any($1)', [
          ids,
        ]);
        // Each replica names itself (host/pid/random): both took jobs.
        expect(rows).toHaveLength(2);
      } finally {
        await b.close();
      }
    });
  });

  describe('active-testing authorization', () => {
    it('authorizes a verified domain with an attestation (201), refuses without one or unverified (400), revokes (200), then 404', async () => {
      const account = randomUUID();
      await post(account, '/v1/analysis/domains', { domain: 'pending-auth.example' });
      const pending = await post(account, '/v1/audit/authorize', {
        domain: 'pending-auth.example',
        attestation: { owner: true, name: 'Ada' },
      });
      expect(pending.status).toBe(400);
      await h.verified(account, 'auth.example');
      for (const attestation of [undefined, { owner: false, name: 'Ada' }, { owner: true, name: ' ' }]) {
        const res = await post(account, '/v1/audit/authorize', {
          domain: 'auth.example',
          ...(attestation ? { attestation } : {}),
        });
        expect(res.status).toBe(400);
      }
      expect((await get(account, '/v1/audit/authorization?domain=auth.example')).body.data).toBeNull();
      const made = await post(account, '/v1/audit/authorize', {
        domain: 'auth.example',
        attestation: { owner: true, name: 'Ada' },
        days: 7,
      });
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({ domain: 'auth.example', status: 'active', attested_by: 'Ada' });
      expect((await get(account, '/v1/audit/authorization?domain=auth.example')).body.data.id).toBe(
        made.body.data.id,
      );
      // The scope stays on the domain: paths, its subdomains, URLs on it; another host is a 400.
      const scoped = await post(account, '/v1/audit/authorize', {
        domain: 'auth.example',
        attestation: { owner: true, name: 'Ada' },
        scope: ['/app/', '*.auth.example', 'https://shop.auth.example/x'],
      });
      expect(scoped.status).toBe(201);
      expect(scoped.body.data.scope.entries).toEqual([
        '/app/',
        '*.auth.example',
        'https://shop.auth.example/x',
      ]);
      expect((await get(account, '/v1/audit/authorization?domain=auth.example')).body.data.id).toBe(
        scoped.body.data.id,
      );
      for (const scope of [['evil.example'], ['https://evil.example/'], ['*.example']])
        expect(
          (
            await post(account, '/v1/audit/authorize', {
              domain: 'auth.example',
              attestation: { owner: true, name: 'Ada' },
              scope,
            })
          ).status,
        ).toBe(400);
      const revoked = await post(account, '/v1/audit/authorization/revoke', { domain: 'auth.example' });
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.status).toBe('revoked');
      expect((await post(account, '/v1/audit/authorization/revoke', { domain: 'auth.example' })).status).toBe(
        404,
      );
      expect((await get(account, '/v1/audit/authorization?domain=auth.example')).body.data).toBeNull();
    });
  });

  describe('credentials', () => {
    it('stores a secret sealed with AES-256-GCM, never answers it, hands it to the pipeline, and deletes it', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'login.example');
      const secret = 'hunter2-very-secret-password';
      const made = await post(account, '/v1/analysis/credentials', {
        domain: 'login.example',
        kind: 'form',
        username: 'auditor@login.example',
        login_url: 'https://login.example/sign-in',
        secret,
      });
      expect(made.status).toBe(201);
      expect(JSON.stringify(made.body)).not.toContain('hunter2');
      expect(made.body.data).toMatchObject({
        kind: 'form',
        username: 'auditor@login.example',
        secret: '********',
      });
      const listed = await get(account, '/v1/analysis/credentials?domain=login.example');
      expect(listed.body.data).toHaveLength(1);
      expect(JSON.stringify(listed.body)).not.toContain('hunter2');
      const { rows } = await sql.query('select secret_sealed from analysis.credentials where id = $1', [
        made.body.data.id,
      ]);
      expect(rows[0]!.secret_sealed).toMatch(/^v1\./);
      expect(rows[0]!.secret_sealed).not.toContain('hunter2');
      expect(Buffer.from(rows[0]!.secret_sealed.split('.')[3], 'base64url').toString()).not.toContain(
        'hunter2',
      );

      const run = await post(account, '/v1/analysis/run', { domain: 'login.example', tier: 'audit_base' });
      await settled(account, 'login.example', run.body.data.id);
      expect(h.seen.find((s) => s.run_id === run.body.data.id)!.credentials).toEqual({
        username: 'auditor@login.example',
        password: secret,
        login_url: 'https://login.example/sign-in',
      });
      const report = await sql.query('select report::text as r from analysis.runs where id = $1', [
        run.body.data.id,
      ]);
      expect(report.rows[0]!.r).not.toContain('hunter2');

      const del = await request(h.a.app)
        .delete(`/v1/analysis/credentials?id=${made.body.data.id}`)
        .set(await h.as(account));
      expect(del.status).toBe(204);
      expect((await get(account, '/v1/analysis/credentials')).body.data).toEqual([]);
    });
  });

  describe('owner gating', () => {
    it('answers 404 to another account on every route naming a domain, run or credential of the owner', async () => {
      const owner = randomUUID();
      const stranger = randomUUID();
      await h.grant(owner, 20_000_000);
      await h.verified(owner, 'owned.example');
      await post(owner, '/v1/audit/authorize', {
        domain: 'owned.example',
        attestation: { owner: true, name: 'O' },
      });
      const run = await post(owner, '/v1/analysis/run', { domain: 'owned.example', tier: 'audit_base' });
      const cred = await post(owner, '/v1/analysis/credentials', {
        domain: 'owned.example',
        kind: 'form',
        username: 'u',
        secret: 's3cret',
      });
      await settled(owner, 'owned.example', run.body.data.id);
      await h.grant(stranger, 20_000_000);

      const asStranger = await h.as(stranger);
      const answers = await Promise.all([
        request(h.a.app).get('/v1/analysis/verify?domain=owned.example').set(asStranger),
        request(h.a.app).get('/v1/analysis/dns-provider?domain=owned.example').set(asStranger),
        request(h.a.app).get('/v1/analysis/reports?domain=owned.example').set(asStranger),
        request(h.a.app).get(`/v1/analysis/report/${run.body.data.id}/trace`).set(asStranger),
        request(h.a.app)
          .get(`/v1/analysis/report/${run.body.data.id}/trace`)
          .set({ ...asStranger, Accept: 'text/event-stream' }),
        request(h.a.app)
          .post('/v1/analysis/run')
          .set(asStranger)
          .send({ domain: 'owned.example', tier: 'audit_base' }),
        request(h.a.app)
          .post('/v1/audit/authorize')
          .set(asStranger)
          .send({ domain: 'owned.example', attestation: { owner: true, name: 'S' } }),
        request(h.a.app).get('/v1/audit/authorization?domain=owned.example').set(asStranger),
        request(h.a.app)
          .post('/v1/audit/authorization/revoke')
          .set(asStranger)
          .send({ domain: 'owned.example' }),
        request(h.a.app)
          .post('/v1/analysis/credentials')
          .set(asStranger)
          .send({ domain: 'owned.example', kind: 'form', username: 'u', secret: 'x' }),
        request(h.a.app).get('/v1/analysis/credentials?domain=owned.example').set(asStranger),
        request(h.a.app).delete(`/v1/analysis/credentials?id=${cred.body.data.id}`).set(asStranger),
        request(h.a.app)
          .post('/v1/analysis/auto-rescan')
          .set(asStranger)
          .send({ domain: 'owned.example', enabled: true }),
      ]);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 404));
      expect((await get(owner, '/v1/analysis/report/not-a-run/trace')).status).toBe(404);
      expect((await get(stranger, '/v1/analysis/domains')).body.data).toEqual([]);
      expect((await get(stranger, '/v1/analysis/credentials')).body.data).toEqual([]);
      expect(await h.balance(stranger)).toBe(20_000_000);
      // The owner's things are untouched.
      expect((await get(owner, '/v1/audit/authorization?domain=owned.example')).body.data.status).toBe(
        'active',
      );
      expect((await get(owner, '/v1/analysis/credentials')).body.data).toHaveLength(1);
      // A stranger may add the same hostname to its own account; it is a separate, unverified row.
      expect(
        (await post(stranger, '/v1/analysis/domains', { domain: 'owned.example' })).body.data.verified,
      ).toBe(false);
    });

    it('answers 401 without a session, an API key included', async () => {
      const key = await (
        await import('@meridian/http-kit/testing')
      ).callerHeaders({ account_id: randomUUID(), auth: 'api_key', plan: 'free' });
      for (const path of ['/v1/analysis/domains', '/v1/analysis/entitlement', '/v1/analysis/credentials'])
        expect((await request(h.a.app).get(path).set(key)).status).toBe(401);
    });
  });

  describe('weekly re-scan', () => {
    it('starts one run per week however many replicas look, and the report shows what changed', async () => {
      const account = randomUUID();
      await h.grant(account, 100_000_000);
      await h.verified(account, 'weekly.example');
      const finding = (id: string) => ({
        id,
        category: 'headers' as const,
        title: id,
        severity: 'medium' as const,
        outcome: 'problem' as const,
        passed: false,
        evidence: 'e',
        remediation: 'r',
        score_modifier: -5,
      });
      h.behaviours.set('weekly.example', {
        findings: [finding('headers.hsts.missing'), finding('headers.csp.missing')],
      });
      const first = await post(account, '/v1/analysis/run', { domain: 'weekly.example', tier: 'audit_base' });
      await settled(account, 'weekly.example', first.body.data.id);

      const on = await post(account, '/v1/analysis/auto-rescan', { domain: 'weekly.example' });
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ enabled: true, tier: 'audit_base', interval: 'week' });
      const due = Date.parse(on.body.data.next_run_at);
      expect(due - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

      h.behaviours.set('weekly.example', {
        findings: [finding('headers.csp.missing'), finding('cookies.secure.missing')],
      });
      const b = await h.replica({ RUN_WORKER: 'false' });
      try {
        const later = new Date(due + 60_000);
        const started = await Promise.all([
          runDueRescans(h.a.deps, later),
          runDueRescans(b.deps, later),
          runDueRescans(h.a.deps, later),
          runDueRescans(b.deps, later),
        ]);
        expect(started.reduce((x, y) => x + y, 0)).toBe(1);
        expect(await runDueRescans(b.deps, new Date(due + 3 * 86_400_000))).toBe(0);
        const { rows } = await sql.query(
          "select id from analysis.runs where domain = 'weekly.example' and origin = 'rescan'",
        );
        expect(rows).toHaveLength(1);
        const rescan = await settled(account, 'weekly.example', rows[0]!.id);
        expect(rescan).toMatchObject({
          status: 'succeeded',
          origin: 'rescan',
          payment: 'credit',
          amount_atomic: RUN_PRICE.audit_base,
        });
        const report = (await sql.query('select report from analysis.runs where id = $1', [rows[0]!.id]))
          .rows[0]!.report;
        expect(report.changes).toEqual({
          previous_run_id: first.body.data.id,
          new: ['cookies.secure.missing'],
          resolved: ['headers.hsts.missing'],
        });
        // The next week is due a week later; turned off, nothing more starts.
        expect(await runDueRescans(b.deps, new Date(due + 7 * 86_400_000 + 60_000))).toBe(1);
        expect(
          (await post(account, '/v1/analysis/auto-rescan', { domain: 'weekly.example' })).body.data.enabled,
        ).toBe(false);
        expect(await runDueRescans(b.deps, new Date(due + 14 * 86_400_000 + 60_000))).toBe(0);
      } finally {
        await b.close();
      }
    });
  });
});
