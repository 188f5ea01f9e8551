// The analysis platform's domains and what hangs on them: verification through DNS, the DNS
// provider's help, active-testing authorizations, sealed credentials, and 404 to every other account.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startPlatform, type Platform } from './platform-harness.js';
import { platformCalls } from './support/platform-calls.js';

describe('analysis platform: domains, authorization, credentials, owner gating', () => {
  let h: Platform;
  const { sql, get, post, settled } = platformCalls(() => h);

  beforeAll(async () => {
    h = await startPlatform('analysis_platform_domains', {
      RUN_TIMEOUT_MS: '2500',
      RUN_QUEUED_PER_ACCOUNT: '20',
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

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
});
