import { randomBytes } from 'node:crypto';
import { EVIL_ORIGIN, isDirectoryListing, type ActiveObservation } from '../../domain/checks/active.js';
import { inScope, inWindow, type Authorization } from '../../domain/scope.js';
import { guardedFetch, header, type ScannerOptions, type SeenResponse } from './http.js';

export interface ActiveLimits {
  delayMs: number;
  maxRequests: number;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

/**
 * The active tests, as a polite client: one request at a time, a pause between two, a cap per
 * run, and every URL checked against the authorization's scope and window before it is sent.
 */
export async function probeActive(
  options: ScannerOptions,
  domain: string,
  authorization: Authorization,
  limits: ActiveLimits,
  cookie: string | null,
): Promise<ActiveObservation> {
  const obs: ActiveObservation = {
    cors: null,
    redirects: [],
    listings: [],
    methods: null,
    reflections: [],
    skipped: [],
  };
  let sent = 0;
  const base = `https://${domain}`;

  async function send(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) {
    const url = new URL(path, base).href;
    if (!inScope(url, domain, authorization))
      return void obs.skipped.push(`${url}: outside the authorized scope`);
    const now = limits.now();
    if (!inWindow(authorization, now)) return void obs.skipped.push(`${url}: outside the authorized window`);
    if (sent >= limits.maxRequests)
      return void obs.skipped.push(`${url}: request cap of ${limits.maxRequests} reached`);
    if (sent > 0) await limits.sleep(limits.delayMs);
    sent++;
    try {
      const res = await guardedFetch(options, url, {
        ...init,
        headers: { ...(cookie ? { cookie } : {}), ...init.headers },
        follow: false,
      });
      return res.final;
    } catch {
      return undefined;
    }
  }

  const cors = await send('/', { headers: { origin: EVIL_ORIGIN } });
  if (cors)
    obs.cors = {
      allow_origin: header(cors.headers, 'access-control-allow-origin'),
      allow_credentials:
        header(cors.headers, 'access-control-allow-credentials').trim().toLowerCase() === 'true',
    };

  for (const path of ['/', '/login']) {
    for (const param of ['next', 'url', 'redirect']) {
      const asked = `${path}?${param}=${encodeURIComponent(`${EVIL_ORIGIN}/`)}`;
      const res = await send(asked);
      if (res)
        obs.redirects.push({ url: res.url, status: res.status, location: res.headers.location ?? null });
    }
  }

  for (const path of ['/uploads/', '/images/', '/static/', '/files/', '/backup/']) {
    const res = await send(path);
    if (res)
      obs.listings.push({
        url: res.url,
        status: res.status,
        listing: res.status === 200 && isDirectoryListing(res.body),
      });
  }

  const options_ = await send('/', { method: 'OPTIONS' });
  const trace: SeenResponse | undefined = await send('/', {
    method: 'TRACE',
    headers: { 'x-meridian-trace': 'probe' },
  });
  const probePath = `/meridian-put-probe-${randomBytes(6).toString('hex')}.txt`;
  const put = await send(probePath, { method: 'PUT', body: 'meridian audit probe' });
  // A server that accepted the file gets asked to delete it again.
  if (put && put.status >= 200 && put.status < 300) await send(probePath, { method: 'DELETE' });
  if (options_ || trace || put)
    obs.methods = {
      allow: options_ ? header(options_.headers, 'allow') || null : null,
      trace_echo: !!trace && trace.status === 200 && /x-meridian-trace:\s*probe/i.test(trace.body),
      put_status: put ? put.status : null,
    };

  const marker = `mrdn${randomBytes(6).toString('hex')}`;
  const payload = `${marker}<b>"'`;
  for (const path of ['/', '/search']) {
    for (const param of ['q', 's']) {
      const res = await send(`${path}?${param}=${encodeURIComponent(payload)}`);
      if (res) obs.reflections.push({ url: res.url, reflected: res.body.includes(`${marker}<b>`) });
    }
  }
  return obs;
}
