import { createServer } from 'node:net';
import { rootCertificates } from 'node:tls';
import { startDnsPeer, type DnsEntry, type DnsPeer } from '@meridian/test-peers';
import type { Finding, Report } from '@meridian/contracts';
import { parseConfig } from '../../../src/config.js';
import type { PipelineInput } from '../../../src/flows/run-pipeline.js';
import {
  badSite,
  goodSite,
  makeCa,
  metadataRedirect,
  oldSite,
  selfSigned,
  startSite,
  type Site,
} from '../sites.js';

const includes = Array.from({ length: 11 }, (_, i) => `include:i${i}.bad.test`).join(' ');
const zone: Record<string, DnsEntry> = {
  'good.test': {
    A: ['127.0.0.1'],
    TXT: ['v=spf1 ip4:127.0.0.1 -all', 'google-site-verification=abc'],
    MX: [{ exchange: 'mx.good.test', priority: 10 }],
    CAA: [{ tag: 'issue', value: 'letsencrypt.org' }],
    signed: true,
  },
  '_dmarc.good.test': { TXT: ['v=DMARC1; p=reject; rua=mailto:d@good.test'] },
  'bad.test': { A: ['127.0.0.1'], TXT: [`v=spf1 ${includes} -all`] },
  ...Object.fromEntries(
    Array.from({ length: 11 }, (_, i) => [`i${i}.bad.test`, { TXT: ['v=spf1 ip4:192.0.2.1 ~all'] }]),
  ),
  'old.test': { A: ['127.0.0.1'], TXT: ['v=spf1 +all'] },
  '_dmarc.old.test': { TXT: ['v=DMARC1; p=none'] },
  'meta.test': { A: ['127.0.0.1'] },
  'private.test': { A: ['10.0.0.5'] },
};

export interface PipelineSites {
  /** The zone above, served on loopback. */
  dns: DnsPeer;
  /** Built to pass every check (good.test), to fail them (bad.test, self-signed for wrong.test),
   *  offering only TLS 1.0 (old.test), and redirecting to the metadata address (meta.test). */
  good: Site;
  bad: Site;
  old: Site;
  meta: Site;
  /** The roots the scanner trusts: the system's and the test authority that signed the sites. */
  ca: string[];
  close(): Promise<void>;
}

/** The sites the pipeline is run against, their certificate authority and their DNS zone. */
export async function startPipelineSites(): Promise<PipelineSites> {
  const authority = await makeCa();
  const ca = [...rootCertificates, authority.cert];
  const dns = await startDnsPeer(zone);
  const started = Promise.all([
    authority.leaf('good.test').then((pem) => startSite(pem, goodSite)),
    selfSigned('wrong.test').then((pem) => startSite(pem, badSite)),
    authority
      .leaf('old.test', 10)
      .then((pem) =>
        startSite(
          { ...pem, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' },
          oldSite,
        ),
      ),
    authority.leaf('meta.test').then((pem) => startSite(pem, metadataRedirect)),
  ]);
  const [good, bad, old, meta] = await started.catch(async (error: unknown) => {
    await dns.close();
    throw error;
  });
  return {
    dns,
    good,
    bad,
    old,
    meta,
    ca,
    close: async () => {
      await Promise.all([dns.close(), good.close(), bad.close(), old.close(), meta.close()]);
    },
  };
}

/** The pipeline's deps with the scanner pointed at `site`'s ports, then the test's own settings. */
export function pipelineDeps(sites: PipelineSites, site: Site, env: Record<string, string> = {}) {
  return {
    config: parseConfig({
      INTERNAL_AUTH_SECRET: 'x'.repeat(32),
      DNS_SERVERS: sites.dns.address,
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_HTTP_PORT: String(site.httpPort),
      SCANNER_HTTPS_PORT: String(site.httpsPort),
      SCANNER_TIMEOUT_MS: '4000',
      SCANNER_ACTIVE_DELAY_MS: '5',
      ...env,
    }),
    scannerCa: sites.ca,
  };
}

export const input = (domain: string, extra: Partial<PipelineInput> = {}): PipelineInput => ({
  run_id: `run-${domain}`,
  domain,
  tier: 'audit_base',
  ...extra,
});

export const authorization = () => ({
  scope: [] as string[],
  starts_at: new Date(Date.now() - 3_600_000).toISOString(),
  ends_at: new Date(Date.now() + 3_600_000).toISOString(),
});

export const problems = (r: Report) =>
  r.findings
    .filter((f) => !f.passed)
    .map((f) => f.id)
    .sort();
export const passed = (r: Report) => r.findings.filter((f) => f.passed).map((f) => f.id);
export const find = (r: Report, id: string): Finding | undefined => r.findings.find((f) => f.id === id);

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}
