import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Report } from '@meridian/contracts';
import { startDnsPeer } from '@meridian/test-peers';
import { parseConfig } from '../../src/config.js';
import { runPipeline } from '../../src/flows/run-pipeline.js';
import { generate } from 'selfsigned';
import { makeCa, startSite, type Handler, type Pem } from './sites.js';

/**
 * Local sites for the HTTP Observatory comparison: one configuration each, served by one pair of
 * servers that tells the sites apart by Host. Every site starts from a page the Observatory
 * scores 115 (a CSP without unsafe sources and with frame-ancestors, HSTS over https, nosniff,
 * no-referrer, no cookies, no scripts) and changes one thing.
 */
export interface ObservatorySite {
  /** Serves the page over plain http only (the scanner's https port is closed for it). */
  plainOnly?: boolean;
  /** Headers added to (or, with null, removed from) the baseline page. */
  headers?: Record<string, string | null>;
  /** Markup added to the page's head. */
  head?: string;
  /** Answers every request from an Origin with that origin and Access-Control-Allow-Credentials. */
  reflectOrigin?: boolean;
  /** The home page's status (200 unless given). */
  status?: number;
}

const BASELINE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function pageHeaders(site: ObservatorySite, req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = { ...BASELINE_HEADERS, 'content-type': 'text/html; charset=utf-8' };
  for (const [name, value] of Object.entries(site.headers ?? {}))
    if (value === null) delete headers[name];
    else headers[name] = value;
  if (site.reflectOrigin && req.headers.origin) {
    headers['access-control-allow-origin'] = req.headers.origin;
    headers['access-control-allow-credentials'] = 'true';
  }
  return headers;
}

function answer(site: ObservatorySite, host: string, req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', `http://${host}`).pathname;
  if (req.headers['x-scheme'] === 'http' && !site.plainOnly)
    return void res.writeHead(301, { location: `https://${host}${path}` }).end();
  const headers = pageHeaders(site, req);
  if (req.method === 'OPTIONS') return void res.writeHead(204, headers).end();
  if (path !== '/')
    return void res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not Found');
  res
    .writeHead(site.status ?? 200, headers)
    .end(
      `<!doctype html><html lang="en"><head><title>${host}</title>${site.head ?? ''}</head><body><p>${host}</p></body></html>`,
    );
}

/** One handler for every site of `sites`, keyed by host name. */
export function observatorySites(sites: Record<string, ObservatorySite>): Handler {
  return (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const site = sites[host];
    if (!site) return void res.writeHead(421).end();
    answer(site, host, req, res);
  };
}

/** A leaf certificate for several host names, signed by the test CA of sites.ts. */
export async function leafFor(ca: Pem, hosts: string[]): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: hosts[0]! }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 86_400_000),
    notAfterDate: new Date(Date.now() + 200 * 86_400_000),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((value) => ({ type: 2, value })) },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** The sites on loopback, their names in a DNS peer, and a base-tier audit of any of them. */
export interface ObservatoryBed {
  /** A base-tier audit through the whole pipeline; `plainOnly` closes the https port for it. */
  audit(domain: string, plainOnly?: boolean): Promise<Report>;
  close(): Promise<void>;
}

/** A free loopback port nothing listens on: the https port of a site served over http only. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

export async function startObservatoryBed(sites: Record<string, ObservatorySite>): Promise<ObservatoryBed> {
  const authority = await makeCa();
  const ca = [...rootCertificates, authority.cert];
  const hosts = Object.keys(sites);
  const dns = await startDnsPeer(Object.fromEntries(hosts.map((h) => [h, { A: ['127.0.0.1'] }])));
  const site = await startSite(await leafFor(authority, hosts), observatorySites(sites));
  const closed = await closedPort();
  return {
    audit: (domain, plainOnly = false) =>
      runPipeline(
        {
          config: parseConfig({
            INTERNAL_AUTH_SECRET: 'x'.repeat(32),
            DNS_SERVERS: dns.address,
            SCANNER_ALLOW_LOOPBACK: 'true',
            SCANNER_HTTP_PORT: String(site.httpPort),
            SCANNER_HTTPS_PORT: String(plainOnly ? closed : site.httpsPort),
            SCANNER_TIMEOUT_MS: '4000',
          }),
          scannerCa: ca,
        },
        { run_id: `run-${domain}`, domain, tier: 'audit_base' },
        () => undefined,
      ),
    close: async () => {
      await Promise.all([dns.close(), site.close()]);
    },
  };
}
