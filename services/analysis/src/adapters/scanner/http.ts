import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { nodeHttp } from '@meridian/http-kit';
import { refusalOf, type AddressPolicy } from '../../domain/address-policy.js';
import type { ScannerResolver } from './resolver.js';

/** What every probe needs: the resolver, the address policy and the limits. */
export interface ScannerOptions {
  resolver: ScannerResolver;
  policy: AddressPolicy;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Ports used for URLs without one (80 and 443 except in tests). */
  httpPort: number;
  httpsPort: number;
  /** Trust anchors for the chain check; unset: Node's bundled roots. */
  ca?: string[];
}

/** The scanner refused to connect: the target or a redirect hop is not a public address. */
export class ScanRefused extends Error {
  override name = 'ScanRefused';
}

/**
 * Resolves `host` through the scanner's resolver and checks every address it has: one refused
 * address refuses the host (a name must not mix a public and a private address). Answers the
 * address to pin the connection to, IPv4 first.
 */
export async function checkedAddress(options: Pick<ScannerOptions, 'resolver' | 'policy'>, host: string) {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [bare] : await options.resolver.addresses(bare);
  if (addresses.length === 0) throw new ScanRefused(`${bare} has no address`);
  for (const address of addresses) {
    const refusal = refusalOf(address, options.policy);
    if (refusal) throw new ScanRefused(`refused ${bare}: ${refusal}`);
  }
  return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
}

/** A lookup that answers only the checked address: the socket cannot go anywhere else. */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

export interface SeenResponse {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  bytes: number;
  truncated: boolean;
  ttfbMs: number;
}

export interface FetchResult {
  /** Every response in order; the last one is the final response. */
  hops: SeenResponse[];
  final: SeenResponse;
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Follow redirects (each hop checked like the first); default true. */
  follow?: boolean;
  maxRedirects?: number;
}

export function portOf(url: URL, options: Pick<ScannerOptions, 'httpPort' | 'httpsPort'>): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? options.httpsPort : options.httpPort;
}

/** One request, pinned to a checked address, with a time limit and a body cap. */
async function once(options: ScannerOptions, url: URL, init: FetchInit): Promise<SeenResponse> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ScanRefused(`refused ${url.protocol} URL`);
  const address = await checkedAddress(options, url.hostname);
  const client = url.protocol === 'https:' ? https : nodeHttp;
  const started = performance.now();
  return new Promise<SeenResponse>((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: portOf(url, options),
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers: { 'user-agent': 'MeridianAudit/1.0', accept: '*/*', ...init.headers },
        lookup: pinnedLookup(address),
        agent: false,
        // The certificate is judged by the TLS stage; the HTTP stage still reads the site.
        rejectUnauthorized: false,
        ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: url.hostname }),
        timeout: options.timeoutMs,
      },
      (res) => {
        const ttfbMs = Math.round(performance.now() - started);
        const chunks: Buffer[] = [];
        let bytes = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          bytes += chunk.length;
          if (bytes > options.maxBodyBytes) {
            truncated = true;
            chunks.push(chunk.subarray(0, chunk.length - (bytes - options.maxBodyBytes)));
            bytes = options.maxBodyBytes;
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
        });
        const finish = () => {
          clearTimeout(overall);
          resolve({
            url: url.href,
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            bytes,
            truncated,
            ttfbMs,
          });
        };
        res.on('end', finish);
        res.on('error', (err) => (truncated ? undefined : reject(err)));
      },
    );
    const overall = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(overall);
      reject(err);
    });
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Fetches a URL; every redirect hop is resolved, checked and pinned like the first request. */
export async function guardedFetch(
  options: ScannerOptions,
  target: string,
  init: FetchInit = {},
): Promise<FetchResult> {
  const hops: SeenResponse[] = [];
  let url = new URL(target);
  let current = init;
  for (let i = 0; ; i++) {
    const seen = await once(options, url, current);
    hops.push(seen);
    const location = seen.headers.location;
    if (init.follow === false || !REDIRECTS.has(seen.status) || !location) return { hops, final: seen };
    if (i >= (init.maxRedirects ?? 10))
      throw new Error(`more than ${init.maxRedirects ?? 10} redirects from ${target}`);
    const next = new URL(location, url);
    if (next.host !== url.host) current = { ...current, headers: withoutCredentials(current.headers) };
    url = next;
    if (seen.status === 303 || ((seen.status === 301 || seen.status === 302) && current.method === 'POST'))
      current = { ...current, method: 'GET', body: undefined };
  }
}

/** A redirect to another host carries no cookie or authorization of the first one. */
function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([k]) => !['cookie', 'authorization'].includes(k.toLowerCase())),
  );
}

/** The Set-Cookie header lines of a response. */
export const setCookies = (headers: IncomingHttpHeaders): string[] => headers['set-cookie'] ?? [];

/** One header as a single string ('' when absent). */
export function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
