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
  if (obs.cors) {
    const reflected = obs.cors.allow_origin === EVIL_ORIGIN;
    if (reflected && obs.cors.allow_credentials)
      out.push(
        fail(
          'active.cors.reflected-credentials',
          'active',
          'CORS reflects any origin with credentials',
          'critical',
          `Access-Control-Allow-Origin: ${obs.cors.allow_origin}; Access-Control-Allow-Credentials: true`,
          'Allow only a fixed list of trusted origins; never echo the Origin header when credentials are allowed.',
          -50,
        ),
      );
    else if (reflected)
      out.push(
        fail(
          'active.cors.reflected',
          'active',
          'CORS reflects any origin',
          'medium',
          `Access-Control-Allow-Origin: ${obs.cors.allow_origin}`,
          'Answer only trusted origins in Access-Control-Allow-Origin.',
          -10,
        ),
      );
    else
      out.push(
        pass(
          'active.cors.ok',
          'active',
          'CORS does not trust an arbitrary origin',
          `Access-Control-Allow-Origin: ${obs.cors.allow_origin || 'absent'}`,
        ),
      );
  }
  if (obs.redirects.length) {
    const open = obs.redirects.filter((r) => redirectsToEvil(r.location, r.url));
    out.push(
      open.length
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
            `${obs.redirects.length} URLs tried`,
          ),
    );
  }
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
  if (obs.methods) {
    const allowed = (obs.methods.allow ?? '')
      .toUpperCase()
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const dangerous = allowed.filter((m) => ['PUT', 'DELETE', 'TRACE', 'CONNECT', 'PATCH'].includes(m));
    const problems: string[] = [];
    if (dangerous.length) problems.push(`OPTIONS answers Allow: ${allowed.join(', ')}`);
    if (obs.methods.trace_echo) problems.push('TRACE echoes the request');
    if (obs.methods.put_status !== null && obs.methods.put_status >= 200 && obs.methods.put_status < 300)
      problems.push(`PUT of a test file answered ${obs.methods.put_status}`);
    out.push(
      problems.length
        ? fail(
            'active.methods.dangerous',
            'active',
            'Dangerous HTTP methods are enabled',
            obs.methods.trace_echo ||
              ((obs.methods.put_status ?? 0) >= 200 && (obs.methods.put_status ?? 0) < 300)
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
            `Allow: ${obs.methods.allow ?? 'absent'}`,
          ),
    );
  }
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
