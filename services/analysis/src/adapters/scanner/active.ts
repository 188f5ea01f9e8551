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
 * run shared by every origin, and every URL checked against the authorization's scope and window
 * before it is sent. Each origin (a scheme the site answers) gets the same tests.
 */
export async function probeActive(
  options: ScannerOptions,
  domain: string,
  origins: readonly string[],
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

  async function send(
    base: string,
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

  for (const origin of origins) await probeOrigin(obs, (path, init) => send(origin, path, init));
  return obs;
}

const exposure = (m: NonNullable<ActiveObservation['methods']>): number =>
  (m.trace_echo ? 2 : 0) +
  (m.put_status !== null && m.put_status >= 200 && m.put_status < 300 ? 2 : 0) +
  (m.allow ? 1 : 0);

type Send = (
  path: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<SeenResponse | undefined>;

/** Every active test against one origin, adding what it saw to `obs`. */
async function probeOrigin(obs: ActiveObservation, send: Send): Promise<void> {
  const cors = await send('/', { headers: { origin: EVIL_ORIGIN } });
  // Of the origins' CORS answers, the report keeps the one that trusts the foreign origin.
  if (cors && (!obs.cors || obs.cors.allow_origin !== EVIL_ORIGIN))
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
  if (options_ || trace || put) {
    const seen = {
      allow: options_ ? header(options_.headers, 'allow') || null : null,
      trace_echo: !!trace && trace.status === 200 && /x-meridian-trace:\s*probe/i.test(trace.body),
      put_status: put ? put.status : null,
    };
    // Of the origins' answers, the report keeps the one that exposes the most.
    if (!obs.methods || exposure(seen) > exposure(obs.methods)) obs.methods = seen;
  }

  const marker = `mrdn${randomBytes(6).toString('hex')}`;
  const payload = `${marker}<b>"'`;
  for (const path of ['/', '/search']) {
    for (const param of ['q', 's']) {
      const res = await send(`${path}?${param}=${encodeURIComponent(payload)}`);
      if (res) obs.reflections.push({ url: res.url, reflected: res.body.includes(`${marker}<b>`) });
    }
  }
}
