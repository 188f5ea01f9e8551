import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DEMO_HOST,
  startDemoResolver,
  startDemoSite,
  type BoundDns,
  type DemoSite,
} from '@meridian/local-demo';
import { parseConfig } from '../../src/config.js';
import type { DemoSiteTarget } from '../../src/flows/pipeline/context.js';
import { runPipeline } from '../../src/flows/run-pipeline.js';

// `pnpm start`'s demo site, audited through the whole pipeline with the SSRF guard as deployed
// (no SCANNER_ALLOW_LOOPBACK): loopback is reachable for the demo's own name and no other.

describe('the demo site of pnpm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'meridian-demo-audit-'));
  let resolver: BoundDns;
  let site: DemoSite;
  let demo: DemoSiteTarget;

  beforeAll(async () => {
    resolver = await startDemoResolver(dataDir);
    site = await startDemoSite(dataDir);
    demo = {
      host: DEMO_HOST,
      httpPort: site.httpPort,
      httpsPort: site.httpsPort,
      ca: [readFileSync(site.caFile, 'utf8')],
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all([resolver?.close(), site?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const audit = (domain: string) =>
    runPipeline(
      {
        config: parseConfig({
          INTERNAL_AUTH_SECRET: 'x'.repeat(32),
          DNS_SERVERS: resolver.address,
          SCANNER_TIMEOUT_MS: '4000',
        }),
        demoSite: demo,
      },
      { run_id: `run-${domain}`, domain, tier: 'audit_base' },
      () => undefined,
    );

  it('grades the demo over https with its CA, finds its planted mistakes and redacts its made-up secret', async () => {
    const report = await audit(DEMO_HOST);
    expect(report.grade).toEqual(expect.any(String));
    const ids = report.findings.map((f) => f.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'http.redirect.https',
        'headers.csp.unsafe',
        'headers.hsts.short',
        'files.exposed.env',
      ]),
    );
    expect(ids).not.toContain('http.https.unavailable');
    expect(JSON.stringify(report)).not.toContain('demo-not-a-real-secret');
  }, 60_000);

  it('keeps the SSRF guard for every other name, even one that resolves to loopback', async () => {
    await expect(audit(`mail.${DEMO_HOST}`)).rejects.toThrow(/loopback address/);
  }, 60_000);
});
