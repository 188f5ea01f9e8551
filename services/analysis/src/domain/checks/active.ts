import type { Finding } from '@meridian/contracts';
import { fail, notRun, pass, quote } from './finding.js';

export const EVIL_ORIGIN = 'https://evil.example';

export interface ActiveObservation {
  /** The CORS answer to a request carrying `Origin: https://evil.example`. */
  cors: { allow_origin: string; allow_credentials: boolean } | null;
  /** Open-redirect probes: the URL asked and the Location it answered (null: no redirect). */
  redirects: { url: string; status: number; location: string | null }[];
  /** Directory-listing probes. */
  listings: { url: string; status: number; listing: boolean }[];
  /** Methods: the Allow header of OPTIONS, whether TRACE echoed, whether a PUT was accepted. */
  methods: { allow: string | null; trace_echo: boolean; put_status: number | null } | null;
  /** Reflected-input probes: where the marker came back unescaped. */
  reflections: { url: string; reflected: boolean }[];
  /** Requests skipped because of the cap, the scope or the window. */
  skipped: string[];
}

/** The body of a server-generated directory listing. */
export const isDirectoryListing = (body: string): boolean =>
  /<title>\s*Index of \//i.test(body) ||
  /<h1>\s*Index of \//i.test(body) ||
  /Directory listing for \//i.test(body);

/** A Location that sends the visitor to the attacker's host. */
export function redirectsToEvil(location: string | null, base: string): boolean {
  if (!location) return false;
  try {
    return new URL(location, base).hostname === new URL(EVIL_ORIGIN).hostname;
  } catch {
    return false;
  }
}

export function activeChecks(obs: ActiveObservation): Finding[] {
  const out: Finding[] = [];
  if (obs.cors) out.push(corsCheck(obs.cors));
  if (obs.redirects.length) out.push(redirectCheck(obs.redirects));
  if (obs.listings.length) {
    const open = obs.listings.filter((l) => l.listing);
    out.push(
      open.length
        ? fail(
            'active.directory-listing',
            'active',
            'Directory listing is enabled',
            'medium',
            open.map((l) => l.url).join(', '),
            'Turn off automatic indexes (nginx `autoindex off`, Apache `Options -Indexes`).',
            -10,
          )
        : pass(
            'active.directory-listing.none',
            'active',
            'No directory listing found',
            `${obs.listings.length} paths tried`,
          ),
    );
  }
  if (obs.methods) out.push(methodsCheck(obs.methods));
  if (obs.reflections.length) {
    const hits = obs.reflections.filter((r) => r.reflected);
    out.push(
      hits.length
        ? fail(
            'active.reflected-input',
            'active',
            'Input is reflected into the page unescaped (XSS risk)',
            'high',
            hits.map((r) => quote(r.url, 200)).join(', '),
            'HTML-escape every value written into a page; add a strict Content-Security-Policy.',
            -30,
          )
        : pass(
            'active.reflected-input.none',
            'active',
            'No unescaped reflection of input found',
            `${obs.reflections.length} URLs tried`,
          ),
    );
  }
  if (obs.skipped.length)
    out.push(
      notRun(
        'active.skipped',
        'active',
        'Some active tests were not run',
        obs.skipped.join('; '),
        'Widen the authorization (scope, window) or raise the request cap to run them.',
      ),
    );
  return out;
}

type Cors = NonNullable<ActiveObservation['cors']>;
type Methods = NonNullable<ActiveObservation['methods']>;

/** Whether CORS trusts an origin it was never told of, with or without credentials. */
function corsCheck(cors: Cors): Finding {
  const reflected = cors.allow_origin === EVIL_ORIGIN;
  if (reflected && cors.allow_credentials)
    return fail(
      'active.cors.reflected-credentials',
      'active',
      'CORS reflects any origin with credentials',
      'critical',
      `Access-Control-Allow-Origin: ${cors.allow_origin}; Access-Control-Allow-Credentials: true`,
      'Allow only a fixed list of trusted origins; never echo the Origin header when credentials are allowed.',
      -50,
    );
  if (reflected)
    return fail(
      'active.cors.reflected',
      'active',
      'CORS reflects any origin',
      'medium',
      `Access-Control-Allow-Origin: ${cors.allow_origin}`,
      'Answer only trusted origins in Access-Control-Allow-Origin.',
      -10,
    );
  return pass(
    'active.cors.ok',
    'active',
    'CORS does not trust an arbitrary origin',
    `Access-Control-Allow-Origin: ${cors.allow_origin || 'absent'}`,
  );
}

/** Whether a redirect parameter sends the visitor to the attacker's host. */
function redirectCheck(redirects: ActiveObservation['redirects']): Finding {
  const open = redirects.filter((r) => redirectsToEvil(r.location, r.url));
  return open.length
    ? fail(
        'active.open-redirect',
        'active',
        'Open redirect to an external host',
        'medium',
        open.map((r) => `${r.url} → ${r.status} ${r.location}`).join('; '),
        'Redirect only to relative paths or to an allow-list of hosts.',
        -20,
      )
    : pass(
        'active.open-redirect.none',
        'active',
        'No open redirect in the parameters tried',
        `${redirects.length} URLs tried`,
      );
}

/** Whether methods that write or echo (PUT, DELETE, TRACE, ...) are enabled. */
function methodsCheck(methods: Methods): Finding {
  const allowed = (methods.allow ?? '')
    .toUpperCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const dangerous = allowed.filter((m) => ['PUT', 'DELETE', 'TRACE', 'CONNECT', 'PATCH'].includes(m));
  const problems: string[] = [];
  if (dangerous.length) problems.push(`OPTIONS answers Allow: ${allowed.join(', ')}`);
  if (methods.trace_echo) problems.push('TRACE echoes the request');
  if (methods.put_status !== null && methods.put_status >= 200 && methods.put_status < 300)
    problems.push(`PUT of a test file answered ${methods.put_status}`);
  return problems.length
    ? fail(
        'active.methods.dangerous',
        'active',
        'Dangerous HTTP methods are enabled',
        methods.trace_echo || ((methods.put_status ?? 0) >= 200 && (methods.put_status ?? 0) < 300)
          ? 'medium'
          : 'low',
        problems.join('; '),
        'Allow only GET, HEAD, POST (and OPTIONS for CORS); disable TRACE, and PUT/DELETE outside an authenticated API.',
        -10,
      )
    : pass(
        'active.methods.ok',
        'active',
        'No dangerous HTTP method is enabled',
        `Allow: ${methods.allow ?? 'absent'}`,
      );
}
