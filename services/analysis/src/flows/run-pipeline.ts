import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditTier, Finding, Report } from '@meridian/contracts';
import { probeActive } from '../adapters/scanner/active.js';
import { corsPreflight } from '../adapters/scanner/cors.js';
import {
  guardedFetch,
  checkedAddress,
  header,
  setCookies,
  type FetchResult,
  type ScannerOptions,
  type SeenResponse,
} from '../adapters/scanner/http.js';
import { createScannerResolver, type ScannerResolver } from '../adapters/scanner/resolver.js';
import { evaluateSpf } from '../adapters/scanner/spf.js';
import { probeTls } from '../adapters/scanner/tls.js';
import { activeChecks } from '../domain/checks/active.js';
import { crawlChecks, pageChecks, sriChecks } from '../domain/checks/content.js';
import { dnsChecks, mailChecks } from '../domain/checks/dns.js';
import { EXPOSED_FILES, exposedFileChecks, securityTxtChecks } from '../domain/checks/files.js';
import { fail, pass } from '../domain/checks/finding.js';
import { cookieChecks } from '../domain/checks/cookies.js';
import { PREFLIGHT_ORIGIN } from '../domain/checks/cors.js';
import { headerChecks, redirectChecks } from '../domain/checks/http.js';
import { tlsChecks } from '../domain/checks/tls.js';
import { scoreFindings } from '../domain/grade.js';
import type { FileProbe, HttpObservation, Response, TextResource } from '../domain/observations.js';
import { changesSince, ordered, summarize } from '../domain/report.js';
import { inScope, inWindow, type Authorization } from '../domain/scope.js';
import type { Config } from '../config.js';

export type PipelineConfig = Pick<
  Config,
  | 'DNS_SERVERS'
  | 'SCANNER_ALLOW_LOOPBACK'
  | 'SCANNER_HTTP_PORT'
  | 'SCANNER_HTTPS_PORT'
  | 'SCANNER_TIMEOUT_MS'
  | 'SCANNER_MAX_BODY_BYTES'
  | 'SCANNER_ACTIVE_DELAY_MS'
  | 'SCANNER_ACTIVE_MAX_REQUESTS'
>;

export interface PipelineDeps {
  config: PipelineConfig;
  /** Trust anchors of the TLS chain check; unset: Node's bundled roots (tests add their CA). */
  scannerCa?: string[];
  /** A resolver other than the one DNS_SERVERS names (tests only). */
  scannerResolver?: ScannerResolver;
  now?: () => Date;
}

export interface PipelineInput {
  run_id: string;
  domain: string;
  tier: AuditTier;
  authorization?: Authorization | null;
  credentials?: { username: string; password: string; login_url?: string } | null;
  previous?: Report | null;
}

export type TraceStatus = 'started' | 'finished' | 'failed' | 'info';
export type Trace = (stage: string, status: TraceStatus, message: string) => Promise<void> | void;

/** The run reached nothing: no address, no HTTP, no HTTPS. The run fails (not our checks). */
export class NothingReachable extends Error {
  override name = 'NothingReachable';
}

type Stage = 'dns' | 'mail' | 'tls' | 'http' | 'headers' | 'cookies' | 'files' | 'content' | 'active';

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const asResponse = (r: SeenResponse): Response => ({ ...r });

function fileProbe(path: string, r: SeenResponse): FileProbe {
  return {
    path,
    status: r.status,
    bytes: r.bytes,
    head: r.body.slice(0, 4096),
    content_type: header(r.headers, 'content-type'),
  };
}

function textResource(r: FetchResult): TextResource {
  return {
    url: r.final.url,
    status: r.final.status,
    content_type: header(r.final.headers, 'content-type'),
    body: r.final.body,
  };
}

/** Name=value pairs of Set-Cookie lines, as a Cookie header. */
function cookieHeader(lines: string[]): string {
  return lines
    .map((l) => l.split(';')[0]!.trim())
    .filter((p) => p.includes('='))
    .join('; ');
}

/**
 * Runs every stage of an audit and builds its report. Each stage is traced; a stage that throws
 * becomes a `<stage>.stage-failed` finding and the run goes on, unless nothing at all could be
 * reached, which throws NothingReachable.
 */
export async function runPipeline(deps: PipelineDeps, input: PipelineInput, trace: Trace): Promise<Report> {
  const now = deps.now ?? (() => new Date());
  const cfg = deps.config;
  const domain = input.domain.toLowerCase().replace(/\.$/, '');
  const options: ScannerOptions = {
    resolver:
      deps.scannerResolver ??
      createScannerResolver({ servers: cfg.DNS_SERVERS, timeoutMs: cfg.SCANNER_TIMEOUT_MS }),
    policy: { allowLoopback: cfg.SCANNER_ALLOW_LOOPBACK },
    timeoutMs: cfg.SCANNER_TIMEOUT_MS,
    maxBodyBytes: cfg.SCANNER_MAX_BODY_BYTES,
    httpPort: cfg.SCANNER_HTTP_PORT,
    httpsPort: cfg.SCANNER_HTTPS_PORT,
    ...(deps.scannerCa ? { ca: deps.scannerCa } : {}),
  };
  const started_at = now().toISOString();
  const findings: Finding[] = [];

  async function stage(name: Stage, work: () => Promise<Finding[]>): Promise<void> {
    await trace(name, 'started', `${name} checks started`);
    try {
      const found = await work();
      findings.push(...found);
      const problems = found.filter((f) => !f.passed).length;
      await trace(name, 'finished', `${found.length} checks, ${problems} problems`);
    } catch (err) {
      const message = describe(err);
      findings.push(
        fail(
          `${name}.stage-failed`,
          name,
          `The ${name} checks could not run`,
          'info',
          message,
          'Make sure the site answers from the public internet, then run the audit again.',
        ),
      );
      await trace(name, 'failed', message);
    }
  }

  let reachableAddress = false;
  await stage('dns', async () => {
    const [addresses, caa, dnssec] = await Promise.all([
      options.resolver.addresses(domain),
      options.resolver.caa(domain),
      options.resolver.dnssec(domain),
    ]);
    const out = dnsChecks({ addresses, caa, dnssec });
    if (addresses.length === 0)
      out.unshift(
        fail(
          'dns.address.none',
          'dns',
          'The domain has no A or AAAA record',
          'high',
          'no address',
          'Publish an A (or AAAA) record for the site.',
        ),
      );
    else {
      try {
        await checkedAddress(options, domain);
        reachableAddress = true;
        out.unshift(
          pass('dns.address.public', 'dns', 'The domain resolves to public addresses', addresses.join(', ')),
        );
      } catch (err) {
        out.unshift(
          fail(
            'dns.address.refused',
            'dns',
            'The domain resolves to a private or reserved address',
            'high',
            describe(err),
            'Point the domain at public addresses; the scanner does not test private networks.',
          ),
        );
      }
    }
    return out;
  });

  await stage('mail', async () => {
    const [spf, dmarcTxt, mx] = await Promise.all([
      evaluateSpf(domain, (name) => options.resolver.txt(name)),
      options.resolver.txt(`_dmarc.${domain}`),
      options.resolver.mx(domain),
    ]);
    return mailChecks({ spf, dmarc: dmarcTxt.filter((t) => /^v=DMARC1(\s*;|$)/i.test(t.trim())), mx });
  });

  if (!reachableAddress) {
    await trace('pipeline', 'failed', `nothing could be reached at ${domain}`);
    throw new NothingReachable(`${domain} has no public address the scanner may reach`);
  }

  await stage('tls', async () => tlsChecks(await probeTls(options, domain), now()));

  let sessionCookie: string | null = null;
  const http: HttpObservation = { plain: null, plain_error: null, secure: null, secure_error: null };
  const seenCookies: string[] = [];
  await stage('http', async () => {
    const out: Finding[] = [];
    if (input.credentials) {
      const login = await logIn(options, domain, input.credentials);
      out.push(login.finding);
      sessionCookie = login.cookie;
      seenCookies.push(...login.setCookies);
      await trace(
        'http',
        'info',
        login.finding.passed
          ? 'signed in for an authenticated audit'
          : 'could not sign in; auditing as a visitor',
      );
    }
    const headers: Record<string, string> = sessionCookie ? { cookie: sessionCookie } : {};
    await Promise.all([
      guardedFetch(options, `http://${domain}/`, { headers }).then(
        (r) => void (http.plain = r.hops.map(asResponse)),
        (e) => void (http.plain_error = describe(e)),
      ),
      guardedFetch(options, `https://${domain}/`, { headers }).then(
        (r) => void (http.secure = r.hops.map(asResponse)),
        (e) => void (http.secure_error = describe(e)),
      ),
    ]);
    for (const r of [...(http.plain ?? []), ...(http.secure ?? [])])
      seenCookies.push(...setCookies(r.headers));
    return [...out, ...redirectChecks(http, domain)];
  });
  if (!http.plain && !http.secure) {
    await trace('pipeline', 'failed', `neither http:// nor https:// answered at ${domain}`);
    throw new NothingReachable(
      `${domain} answered neither HTTP (${http.plain_error}) nor HTTPS (${http.secure_error})`,
    );
  }
  const page = (http.secure ?? http.plain)!.at(-1)!;
  const origin = new URL(page.url).protocol === 'https:' ? `https://${domain}` : `http://${domain}`;
  const get = (path: string, follow = true) =>
    guardedFetch(options, `${origin}${path}`, {
      follow,
      headers: sessionCookie ? { cookie: sessionCookie } : {},
    });

  await stage('headers', async () => {
    const preflight = await corsPreflight(options, page.url, PREFLIGHT_ORIGIN);
    return headerChecks(page, preflight && asResponse(preflight));
  });
  await stage('cookies', async () => cookieChecks(seenCookies, origin.startsWith('https:')));

  await stage('files', async () => {
    const baseline = await get(`/meridian-${randomBytes(8).toString('hex')}.txt`, false);
    const probes: FileProbe[] = [];
    for (const spec of EXPOSED_FILES) {
      const r = await get(spec.path, false).catch(() => null);
      if (r) probes.push(fileProbe(spec.path, r.final));
    }
    const security = await get('/.well-known/security.txt').then(textResource, () => null);
    return [
      ...exposedFileChecks({ baseline: fileProbe('(random)', baseline.final), probes }),
      ...securityTxtChecks(security, now()),
    ];
  });

  await stage('content', async () => {
    const robots = await get('/robots.txt').then(textResource, () => null);
    const named = robots?.status === 200 ? /^\s*sitemap\s*:\s*(\S+)/im.exec(robots.body)?.[1] : undefined;
    let sitemapUrl = `${origin}/sitemap.xml`;
    if (named) {
      try {
        if (new URL(named).hostname === domain) sitemapUrl = new URL(named).href;
      } catch {
        // not a URL: the default place
      }
    }
    const sitemap = await guardedFetch(options, sitemapUrl).then(textResource, () => null);
    return [...pageChecks(page), ...sriChecks(page), ...crawlChecks(robots, sitemap)];
  });

  if (input.tier !== 'audit_base') {
    const authorization = input.authorization ?? null;
    if (!authorization) {
      findings.push({
        ...pass(
          'active.not-authorized',
          'active',
          'Active tests were not run: no authorization',
          'no active-testing authorization for this domain',
        ),
        passed: false,
      });
      await trace('active', 'info', 'no authorization: active tests skipped');
    } else if (!inWindow(authorization, now())) {
      findings.push({
        ...pass(
          'active.outside-window',
          'active',
          'Active tests were not run: outside the authorized window',
          `authorized ${authorization.starts_at} to ${authorization.ends_at}`,
        ),
        passed: false,
      });
      await trace('active', 'info', 'outside the authorized window: active tests skipped');
    } else if (!inScope(`https://${domain}/`, domain, authorization)) {
      findings.push({
        ...pass(
          'active.out-of-scope',
          'active',
          'Active tests were not run: the site is outside the authorized scope',
          `scope: ${authorization.scope.join(', ')}`,
        ),
        passed: false,
      });
      await trace('active', 'info', 'outside the authorized scope: active tests skipped');
    } else {
      await stage('active', async () =>
        activeChecks(
          await probeActive(
            options,
            domain,
            authorization,
            {
              delayMs: cfg.SCANNER_ACTIVE_DELAY_MS,
              maxRequests: cfg.SCANNER_ACTIVE_MAX_REQUESTS,
              now,
              sleep: (ms) => sleep(ms),
            },
            sessionCookie,
          ),
        ),
      );
    }
  }

  let review: Report['review'] = null;
  if (input.tier === 'audit_review') {
    review = { status: 'pending', note: null, reviewed_at: null };
    findings.push({
      ...pass(
        'review.pending',
        'review',
        'A human review of this audit is pending',
        'an operator reviews the findings and adds a note',
      ),
      passed: false,
    });
    await trace('review', 'info', 'review task created for an operator');
  }

  const { score, grade } = scoreFindings(findings);
  const sorted = ordered(findings);
  await trace('pipeline', 'finished', `grade ${grade}, score ${score}`);
  return {
    run_id: input.run_id,
    domain,
    tier: input.tier,
    status: 'succeeded',
    started_at,
    finished_at: now().toISOString(),
    score,
    grade,
    summary: summarize(domain, score, grade, sorted),
    findings: sorted,
    changes: changesSince(input.previous, sorted),
    review,
  };
}

/**
 * Signs in with a form POST (username, password) to the login URL, which must be on the audited
 * domain; carries the cookies it sets. The password goes nowhere else: not to a trace, not to a
 * finding, not to another host (a redirect elsewhere drops it, GuardedFetch drops cookies too).
 */
async function logIn(
  options: ScannerOptions,
  domain: string,
  credentials: { username: string; password: string; login_url?: string },
): Promise<{ finding: Finding; cookie: string | null; setCookies: string[] }> {
  const url = new URL(credentials.login_url ?? `https://${domain}/login`);
  const host = url.hostname.toLowerCase();
  if (host !== domain && !host.endsWith(`.${domain}`))
    return {
      finding: fail(
        'http.login.refused',
        'http',
        'The login URL is not on the audited domain',
        'info',
        url.origin,
        `Store a login URL on ${domain}; credentials are never sent to another host.`,
      ),
      cookie: null,
      setCookies: [],
    };
  const lines: string[] = [];
  const form = await guardedFetch(options, url.href).catch(() => null);
  if (form) lines.push(...form.hops.flatMap((h) => setCookies(h.headers)));
  const body = new URLSearchParams({
    username: credentials.username,
    password: credentials.password,
  }).toString();
  const posted = await guardedFetch(options, url.href, {
    method: 'POST',
    body,
    follow: false,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
      ...(lines.length ? { cookie: cookieHeader(lines) } : {}),
    },
  }).catch((err: unknown) => describe(err));
  if (typeof posted === 'string')
    return {
      finding: fail(
        'http.login.failed',
        'http',
        'Could not sign in for the authenticated audit',
        'info',
        posted,
        'Check the stored login URL.',
      ),
      cookie: null,
      setCookies: lines,
    };
  const fresh = setCookies(posted.final.headers);
  lines.push(...fresh);
  const ok = posted.final.status < 400 && fresh.length > 0;
  return ok
    ? {
        finding: pass(
          'http.login.ok',
          'http',
          'Signed in for an authenticated audit',
          `POST ${url.pathname} answered ${posted.final.status} and set a session cookie`,
        ),
        cookie: cookieHeader(lines),
        setCookies: lines,
      }
    : {
        finding: fail(
          'http.login.failed',
          'http',
          'Could not sign in for the authenticated audit',
          'info',
          `POST ${url.pathname} answered ${posted.final.status}${fresh.length ? '' : ' without a cookie'}`,
          'Check the stored username, password and login URL.',
        ),
        cookie: null,
        setCookies: lines,
      };
}
