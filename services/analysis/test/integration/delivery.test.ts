import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { RPC, reportSchema, type Report } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { runPipeline } from '../../src/flows/run-pipeline.js';
import { startPlatform, type Analysis, type Platform } from './platform-harness.js';
import { pdfText } from './support/pdf-text.js';
import { badSite, fragileSite, selfSigned, splitSite, startSite, type Site } from './sites.js';

const SECURE = 29_000_000;
const BASE = 9_000_000;
const GRANT = 100_000_000;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * What a run delivers, through the routes and a worker running the real pipeline against sites on
 * loopback (a DNS peer names them): the schemes a site answers, the findings of checks that could
 * not run, the refund of what they cost, and secrets kept out of every rendering of the report.
 */
describe('what a run delivers', () => {
  let h: Platform;
  let plain: Site;
  let split: Site;
  let fragile: Site;

  beforeAll(async () => {
    [plain, split, fragile] = await Promise.all([
      selfSigned('plain.test').then((pem) => startSite(pem, badSite)),
      selfSigned('split.test').then((pem) => startSite(pem, splitSite)),
      selfSigned('fragile.test').then((pem) => startSite(pem, fragileSite)),
    ]);
    h = await startPlatform('analysis_delivery', {
      RUN_WORKER: 'false',
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_TIMEOUT_MS: '3000',
      SCANNER_ACTIVE_DELAY_MS: '0',
    });
    for (const name of ['plain.test', 'scoped.test', 'split.test', 'fragile.test'])
      h.dns.zone.A.set(name, ['127.0.0.1']);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([plain?.close(), split?.close(), fragile?.close()]);
  });

  const get = async (account: string, path: string) =>
    request(h.a.app)
      .get(path)
      .set(await h.as(account));
  const post = async (account: string, path: string, body: object) =>
    request(h.a.app)
      .post(path)
      .set(await h.as(account))
      .send(body);

  /** A verified (and, for active tiers, authorized) domain's run, waited for until it settles. */
  async function audit(account: string, domain: string, tier: string, scope?: string[]) {
    await h.verified(account, domain);
    if (tier !== 'audit_base') {
      const authorized = await post(account, '/v1/audit/authorize', {
        domain,
        attestation: { owner: true, name: 'Ada Owner' },
        ...(scope ? { scope } : {}),
      });
      expect(authorized.status).toBe(201);
    }
    const asked = await post(account, '/v1/analysis/run', { domain, tier });
    expect(asked.status).toBe(201);
    const id = asked.body.data.id as string;
    let run: Record<string, unknown> | undefined;
    await waitFor(
      async () => {
        run = (await get(account, `/v1/analysis/reports?domain=${domain}`)).body.data.find(
          (r: { id: string }) => r.id === id,
        );
        return (run?.status === 'succeeded' || run?.status === 'failed') && run.refund !== 'pending';
      },
      { what: `run ${id} settled`, timeoutMs: 60_000 },
    );
    const report = reportSchema.parse((await get(account, `/v1/analysis/report/${id}`)).body.data);
    return { id, run: run!, report };
  }

  /** The report as its owner's PDF and as the page behind a fresh share link. */
  async function renderings(account: string, id: string): Promise<{ pdf: string; page: string }> {
    const pdf = await request(h.a.app)
      .get(`/v1/analysis/report/${id}/pdf`)
      .set(await h.as(account))
      .buffer(true);
    expect(pdf.type).toBe('application/pdf');
    const shared = await post(account, `/v1/analysis/report/${id}/share`, {});
    expect(shared.status).toBe(201);
    const page = await request(h.a.app)
      .get(`/v1/analysis/shared/${shared.body.data.token}`)
      .set(await callerHeaders())
      .set('Accept', 'text/html');
    expect(page.status).toBe(200);
    return { pdf: await pdfText(pdf.body as Buffer), page: page.text };
  }

  const find = (report: Report, id: string) => report.findings.find((f) => f.id === id);
  const traceOf = async (account: string, id: string) =>
    (await get(account, `/v1/analysis/report/${id}/trace`)).body.data.map(
      (e: { stage: string; status: string; message: string }) => `${e.stage}:${e.status}:${e.message}`,
    ) as string[];

  describe('a site that answers http only', () => {
    let worker: Analysis;
    beforeAll(async () => {
      worker = await h.replica(
        {
          RUN_WORKER: 'true',
          SCANNER_HTTP_PORT: String(plain.httpPort),
          SCANNER_HTTPS_PORT: String(await closedPort()),
        },
        runPipeline,
      );
    });
    afterAll(async () => worker?.close());

    it('audit_secure runs its active tests and file probes over http, charges the tier, and quotes no secret', async () => {
      const account = randomUUID();
      await h.grant(account, GRANT);
      const { id, run, report } = await audit(account, 'plain.test', 'audit_secure');
      expect(run).toMatchObject({ status: 'succeeded', amount_atomic: SECURE, refund: null });
      expect(await h.balance(account)).toBe(GRANT - SECURE);
      expect(find(report, 'active.cors.reflected-credentials')).toMatchObject({ outcome: 'problem' });
      expect(find(report, 'active.open-redirect')?.evidence).toContain('http://plain.test/');
      expect(report.findings.filter((f) => f.category === 'active' && f.outcome === 'not_run')).toEqual([]);
      expect(await traceOf(account, id)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^active:finished:\d+ checks, \d+ problems/)]),
      );
      expect(plain.seen).toEqual(expect.arrayContaining(['http OPTIONS /', 'http TRACE /']));

      const env = find(report, 'files.exposed.env')!;
      expect(env.evidence).toContain('http://plain.test/.env: HTTP 200');
      expect(env.evidence).toContain('APP_KEY (10 characters), DB_PASSWORD (7 characters)');
      const { pdf, page } = await renderings(account, id);
      expect(pdf).toContain('DB_PASSWORD (7 characters)');
      for (const text of [JSON.stringify(report), pdf, page]) {
        expect(text).not.toContain('hunter2');
        expect(text).not.toContain('base64:abc');
      }
    }, 90_000);

    it('audit_secure whose authorization leaves the site out of scope says why the active tests did not run and refunds their part', async () => {
      const account = randomUUID();
      await h.grant(account, GRANT);
      const { id, run, report } = await audit(account, 'scoped.test', 'audit_secure', ['/app/']);
      expect(run).toMatchObject({
        status: 'succeeded',
        amount_atomic: SECURE,
        refund: 'done',
        refund_atomic: SECURE - BASE,
      });
      expect(await h.balance(account)).toBe(GRANT - BASE);
      expect(report.findings.filter((f) => f.category === 'active')).toEqual([
        expect.objectContaining({
          id: 'active.out-of-scope',
          outcome: 'not_run',
          passed: false,
          score_modifier: 0,
        }),
      ]);
      expect(find(report, 'active.out-of-scope')?.evidence).toContain('scope: /app/');
      expect(report.summary).toMatch(/, 1 not run\.$/);
      expect(await traceOf(account, id)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^active:failed:not run: the site answers at http:\/\/scoped\.test/),
        ]),
      );
      const { pdf, page } = await renderings(account, id);
      expect(page).toContain('<h2>Not run (1)</h2>');
      expect(pdf).toContain('Not run (1)');
      // Asked again (the sweeper's retry), billing replays the same refund: nothing more goes back.
      await h.client.request(RPC.billingCreditRefund, {
        account_id: account,
        order_id: id,
        amount_atomic: SECURE - BASE,
        idempotency_key: 'undelivered',
        actor: 'service',
      });
      expect(await h.balance(account)).toBe(GRANT - BASE);
    }, 90_000);
  });

  describe('a site whose http and https serve different roots', () => {
    let worker: Analysis;
    beforeAll(async () => {
      worker = await h.replica(
        {
          RUN_WORKER: 'true',
          SCANNER_HTTP_PORT: String(split.httpPort),
          SCANNER_HTTPS_PORT: String(split.httpsPort),
        },
        runPipeline,
      );
    });
    afterAll(async () => worker?.close());

    it('reports the .env and .git/config http still serves although https hides them, naming keys, never values', async () => {
      const account = randomUUID();
      await h.grant(account, GRANT);
      const { id, report } = await audit(account, 'split.test', 'audit_base');
      expect(find(report, 'files.exposed.none')).toBeUndefined();
      expect(find(report, 'files.exposed.env')?.evidence).toBe(
        'http://split.test/.env: HTTP 200, 50 bytes; keys: APP_KEY (15 characters), DB_PASSWORD (13 characters)',
      );
      expect(find(report, 'files.exposed.git-config')?.evidence).toContain(
        'remote.origin.url (54 characters, with credentials in it)',
      );
      expect(find(report, 'files.exposed.git-config')?.evidence).toContain(
        'url.https://github.com/.insteadOf (19 characters, credentials cut out of its section name)',
      );
      expect(split.seen).toEqual(expect.arrayContaining(['https GET /.env', 'http GET /.env']));
      const { pdf, page } = await renderings(account, id);
      for (const text of [JSON.stringify(report), pdf, page])
        for (const secret of [
          'split-hunter2',
          'ghp_splitToken123',
          'c3BsaXQ=',
          'ghs_splitUrl456',
          'splitCredPw789',
          'splitPw000',
        ])
          expect(text).not.toContain(secret);
    }, 90_000);
  });

  describe('a site that answers no active test', () => {
    let worker: Analysis;
    beforeAll(async () => {
      worker = await h.replica(
        {
          RUN_WORKER: 'true',
          SCANNER_HTTP_PORT: String(fragile.httpPort),
          SCANNER_HTTPS_PORT: String(fragile.httpsPort),
        },
        runPipeline,
      );
    });
    afterAll(async () => worker?.close());

    it('reports the active tests as not run instead of "0 checks, 0 problems", and refunds their part', async () => {
      const account = randomUUID();
      await h.grant(account, GRANT);
      const { id, run, report } = await audit(account, 'fragile.test', 'audit_secure');
      expect(run).toMatchObject({ status: 'succeeded', refund: 'done', refund_atomic: SECURE - BASE });
      expect(await h.balance(account)).toBe(GRANT - BASE);
      expect(find(report, 'active.no-answer')).toMatchObject({ outcome: 'not_run' });
      expect(find(report, 'active.no-answer')?.evidence).toContain(
        'https://fragile.test and http://fragile.test',
      );
      const trace = await traceOf(account, id);
      expect(trace).toEqual(expect.arrayContaining([expect.stringMatching(/^active:failed:not run: /)]));
      expect(trace.some((e) => e.startsWith('active:finished'))).toBe(false);
    }, 90_000);
  });
});
