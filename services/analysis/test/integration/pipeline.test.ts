// The audit pipeline run against sites on loopback built to pass and to fail every check, and the
// scanner's SSRF guard refusing loopback, private and metadata addresses.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DnsPeer } from '@meridian/test-peers';
import { reportSchema } from '@meridian/contracts';
import { guardedFetch, ScanRefused, type ScannerOptions } from '../../src/adapters/scanner/http.js';
import { createScannerResolver } from '../../src/adapters/scanner/resolver.js';
import { NothingReachable, runPipeline } from '../../src/flows/run-pipeline.js';
import type { Site } from './sites.js';
import {
  authorization,
  closedPort,
  find,
  input,
  passed,
  pipelineDeps,
  problems,
  startPipelineSites,
  type PipelineSites,
} from './support/pipeline-sites.js';

let sites: PipelineSites;
let dns: DnsPeer;
let good: Site;
let bad: Site;
let old: Site;
let meta: Site;

beforeAll(async () => {
  sites = await startPipelineSites();
  ({ dns, good, bad, old, meta } = sites);
}, 60_000);

afterAll(async () => {
  await sites?.close();
});

const depsFor = (site: Site, env: Record<string, string> = {}) => pipelineDeps(sites, site, env);

describe('the pipeline against sites built to pass and to fail', () => {
  it('gives the well-configured site an A+ with every stage traced', async () => {
    const events: string[] = [];
    const report = await runPipeline(
      depsFor(good),
      input('good.test'),
      (stage, status) => void events.push(`${stage}:${status}`),
    );
    expect(reportSchema.parse(report)).toEqual(report);
    expect(problems(report)).toEqual([]);
    expect(passed(report)).toEqual(
      expect.arrayContaining([
        'dns.address.public',
        'dns.caa.present',
        'dns.dnssec.validated',
        'mail.spf.ok',
        'mail.dmarc.enforced',
        'mail.mx.present',
        'tls.protocol.tls10-off',
        'tls.protocol.tls11-off',
        'tls.protocol.tls13',
        'tls.certificate.valid',
        'tls.chain.trusted',
        'tls.hostname.match',
        'http.redirect.https',
        'headers.csp.strict',
        'headers.hsts.preload',
        'headers.xcto.ok',
        'headers.framing.csp',
        'headers.referrer.ok',
        'cookies.ok',
        'files.exposed.none',
        'files.security-txt.ok',
        'content.sri.ok',
        'content.title.present',
        'content.lang.present',
        'content.robots.present',
        'content.sitemap.present',
      ]),
    );
    expect(report.grade).toBe('A+');
    expect(report.score).toBe(130);
    for (const stage of ['dns', 'mail', 'tls', 'http', 'headers', 'cookies', 'files', 'content'])
      expect(events).toEqual(expect.arrayContaining([`${stage}:started`, `${stage}:finished`]));
    expect(events.at(-1)).toBe('pipeline:finished');
    expect(report.review).toBeNull();
    expect(report.changes).toBeNull();
  }, 60_000);

  it('finds every flaw of the badly configured site and grades it F', async () => {
    const report = await runPipeline(
      depsFor(bad),
      input('bad.test', { tier: 'audit_secure', authorization: authorization() }),
      () => undefined,
    );
    expect(problems(report)).toEqual(
      expect.arrayContaining([
        'dns.caa.missing',
        'dns.dnssec.unsigned',
        'mail.spf.permerror',
        'mail.dmarc.missing',
        'tls.chain.untrusted',
        'tls.hostname.mismatch',
        'http.redirect.missing',
        'headers.csp.missing',
        'headers.hsts.missing',
        'headers.xcto.missing',
        'headers.framing.missing',
        'cookies.secure.missing',
        'cookies.samesite.missing',
        'headers.cors.reflected-credentials',
        'files.exposed.git-config',
        'files.exposed.env',
        'files.security-txt.invalid',
        'content.sri.insecure',
        'content.title.missing',
        'active.cors.reflected-credentials',
        'active.open-redirect',
        'active.directory-listing',
        'active.methods.dangerous',
        'active.reflected-input',
      ]),
    );
    // Soft 404: the home page answers /backup.zip and /db.sql with 200, and neither is reported.
    expect(report.findings.map((f) => f.id)).not.toEqual(
      expect.arrayContaining(['files.exposed.backup-zip']),
    );
    expect(report.findings.some((f) => /backup|db-sql|dump/.test(f.id))).toBe(false);
    expect(find(report, 'mail.spf.permerror')?.evidence).toContain('11 DNS lookups');
    expect(find(report, 'files.exposed.git-config')?.severity).toBe('critical');
    expect(report.grade).toBe('F');
    expect(report.score).toBe(0);
    expect(report.summary).toMatch(/^bad.test: grade F/);
  }, 60_000);

  it('sees TLS 1.0 offered by the old server and keeps auditing over HTTP', async () => {
    const report = await runPipeline(depsFor(old), input('old.test'), () => undefined);
    expect(problems(report)).toEqual(
      expect.arrayContaining([
        'tls.protocol.tls10',
        'tls.protocol.no-modern',
        'tls.certificate.expires-soon',
        'http.https.unavailable',
        'mail.spf.permissive',
        'mail.dmarc.not-enforced',
      ]),
    );
    expect(find(report, 'tls.protocol.tls10')?.evidence).toBe('offered: TLSv1');
    expect(passed(report)).toEqual(
      expect.arrayContaining(['tls.chain.trusted', 'tls.hostname.match', 'content.title.present']),
    );
  }, 60_000);

  it('finds no TLS and goes on over HTTP when only HTTP answers', async () => {
    const events: string[] = [];
    const deps = depsFor(bad, { SCANNER_HTTPS_PORT: String(await closedPort()) });
    const report = await runPipeline(
      deps,
      input('bad.test'),
      (stage, status) => void events.push(`${stage}:${status}`),
    );
    expect(events).toContain('tls:finished');
    expect(find(report, 'tls.unavailable')).toMatchObject({ outcome: 'problem', category: 'tls' });
    expect(problems(report)).toEqual(
      expect.arrayContaining(['http.https.unavailable', 'headers.csp.missing']),
    );
  }, 60_000);

  it('signs in with the stored credentials and carries the session cookie', async () => {
    const report = await runPipeline(
      depsFor(good),
      input('good.test', {
        credentials: { username: 'alice', password: 'pw-never-logged', login_url: 'https://good.test/login' },
      }),
      () => undefined,
    );
    expect(find(report, 'http.login.ok')?.passed).toBe(true);
    expect(JSON.stringify(report)).not.toContain('pw-never-logged');
    expect(good.seen).toEqual(expect.arrayContaining(['https POST /login']));
  }, 60_000);

  it('review tier: the secure checks plus a pending review; changes against the previous report', async () => {
    const previous = { ...(await runPipeline(depsFor(good), input('good.test'), () => undefined)) };
    previous.run_id = 'run-before';
    previous.findings = [
      ...previous.findings,
      { ...previous.findings[0]!, id: 'headers.csp.missing', outcome: 'problem', passed: false },
    ];
    const report = await runPipeline(
      depsFor(good),
      input('good.test', { tier: 'audit_review', authorization: authorization(), previous }),
      () => undefined,
    );
    expect(report.review).toEqual({ status: 'pending', note: null, reviewed_at: null });
    expect(find(report, 'review.pending')).toBeDefined();
    expect(passed(report)).toEqual(
      expect.arrayContaining([
        'active.cors.ok',
        'active.open-redirect.none',
        'active.methods.ok',
        'active.reflected-input.none',
      ]),
    );
    expect(report.changes).toEqual({
      previous_run_id: 'run-before',
      new: ['review.pending'],
      resolved: ['headers.csp.missing'],
    });
  }, 60_000);

  it('runs no active test without an authorization, outside its window, or beyond the request cap', async () => {
    const none = await runPipeline(
      depsFor(bad),
      input('bad.test', { tier: 'audit_secure' }),
      () => undefined,
    );
    expect(find(none, 'active.not-authorized')).toMatchObject({ outcome: 'not_run', passed: false });
    expect(none.findings.some((f) => f.id.startsWith('active.cors'))).toBe(false);
    const past = { scope: [], starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-01-02T00:00:00Z' };
    const late = await runPipeline(
      depsFor(bad),
      input('bad.test', { tier: 'audit_secure', authorization: past }),
      () => undefined,
    );
    expect(find(late, 'active.outside-window')).toBeDefined();
    const before = bad.seen.length;
    const capped = await runPipeline(
      depsFor(bad, { SCANNER_ACTIVE_MAX_REQUESTS: '3' }),
      input('bad.test', { tier: 'audit_secure', authorization: authorization() }),
      () => undefined,
    );
    expect(find(capped, 'active.skipped')).toMatchObject({ outcome: 'not_run' });
    expect(find(capped, 'active.skipped')?.evidence).toContain('request cap of 3 reached');
    const active = bad.seen
      .slice(before)
      .filter((s) => /evil\.example|OPTIONS|TRACE|PUT|uploads|mrdn/.test(decodeURIComponent(s)));
    expect(active.length).toBeLessThanOrEqual(3);
  }, 60_000);
});

describe('the SSRF guard', () => {
  const options = (allowLoopback: boolean, site: Site): ScannerOptions => ({
    resolver: createScannerResolver({ servers: [dns.address], timeoutMs: 3000 }),
    policy: { allowLoopback },
    timeoutMs: 3000,
    maxBodyBytes: 10_000,
    httpPort: site.httpPort,
    httpsPort: site.httpsPort,
  });

  it('refuses 127.0.0.1 and [::ffff:127.0.0.1] when loopback is not enabled, before connecting', async () => {
    const before = good.seen.length;
    await expect(guardedFetch(options(false, good), `http://127.0.0.1:${good.httpPort}/`)).rejects.toThrow(
      ScanRefused,
    );
    await expect(
      guardedFetch(options(false, good), `http://[::ffff:127.0.0.1]:${good.httpPort}/`),
    ).rejects.toThrow(/loopback/);
    await expect(guardedFetch(options(false, good), 'http://good.test/')).rejects.toThrow(
      /127\.0\.0\.1 is a loopback address/,
    );
    expect(good.seen.length).toBe(before);
  });

  it('refuses a name resolving to 10.0.0.5', async () => {
    await expect(guardedFetch(options(true, good), 'http://private.test/')).rejects.toThrow(
      /10\.0\.0\.5 is a private address/,
    );
  });

  it('refuses IPv4-translated and local-use NAT64 literals by the address they carry, even with loopback enabled', async () => {
    await expect(guardedFetch(options(true, good), 'http://[::ffff:0:a00:5]/')).rejects.toThrow(
      /is a private address/,
    );
    await expect(guardedFetch(options(true, good), 'http://[64:ff9b:1::a9fe:a9fe]/')).rejects.toThrow(
      /is a metadata address/,
    );
  });

  it('refuses a redirect to 169.254.169.254, even with loopback enabled', async () => {
    await expect(guardedFetch(options(true, meta), 'http://meta.test/')).rejects.toThrow(
      /169\.254\.169\.254 is a metadata address/,
    );
    expect(meta.seen).toEqual(['http GET /']);
  });

  it('fails the run when the domain points only at refused addresses', async () => {
    const events: string[] = [];
    await expect(
      runPipeline(
        depsFor(good, { SCANNER_ALLOW_LOOPBACK: 'false' }),
        input('good.test'),
        (s, st) => void events.push(`${s}:${st}`),
      ),
    ).rejects.toThrow(NothingReachable);
    await expect(runPipeline(depsFor(good), input('private.test'), () => undefined)).rejects.toThrow(
      NothingReachable,
    );
    expect(events).toContain('pipeline:failed');
  }, 30_000);
});
