import type { Finding } from '@meridian/contracts';
import { fail, pass } from './finding.js';

export interface ParsedCookie {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | null;
  path: string | null;
  domain: string | null;
}

export function parseSetCookie(line: string): ParsedCookie {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const name = (pair ?? '').split('=')[0]!.trim();
  const lower = attrs.map((a) => a.toLowerCase());
  const valueOf = (attr: string) => {
    const found = attrs.find((a) => a.toLowerCase().startsWith(`${attr}=`));
    return found === undefined ? null : found.slice(attr.length + 1).trim();
  };
  return {
    name,
    secure: lower.includes('secure'),
    httpOnly: lower.includes('httponly'),
    sameSite: valueOf('samesite')?.toLowerCase() ?? null,
    path: valueOf('path'),
    domain: valueOf('domain'),
  };
}

const SAME_SITE_VALUES = new Set(['strict', 'lax', 'none']);

/**
 * The cookie-name prefixes' rules (RFC 6265bis 4.1.3): `__Secure-` needs Secure, `__Host-` also
 * Path=/ and no Domain. Browsers refuse a cookie that breaks them.
 */
function breaksPrefix(c: ParsedCookie): boolean {
  if (/^__secure-/i.test(c.name)) return !c.secure;
  if (/^__host-/i.test(c.name)) return !c.secure || c.path !== '/' || c.domain !== null;
  return false;
}

/** A session or sign-in cookie, by its name, as the HTTP Observatory tells them. */
const isSessionCookie = (name: string) => /sess|login/i.test(name);
/** An anti-CSRF token: scripts may need to read it, so it may go without HttpOnly. */
const isCsrfToken = (name: string) => /csrf|xsrf/i.test(name);

const names = (list: ParsedCookie[]) => list.map((c) => c.name).join(', ');

/** Secure cookies set over plain HTTP: browsers drop them (RFC 6265bis 5.7), so the site's cookies never work. */
function dropped(cookies: ParsedCookie[]): Finding[] {
  const secure = cookies.filter((c) => c.secure);
  return secure.length
    ? [
        fail(
          'cookies.secure.dropped',
          'cookies',
          'Secure cookies are set over plain HTTP, so browsers drop them',
          'medium',
          names(secure),
          'Serve the site over HTTPS; a Secure cookie is only kept when it arrives over HTTPS.',
          -20,
        ),
      ]
    : [];
}

/**
 * Cookies that browsers refuse outright: SameSite=None without Secure (Chrome, Firefox and Safari
 * reject it) and a broken `__Secure-`/`__Host-` prefix. Like Secure cookies sent over http, the
 * site's cookie never works, so the figure is the one of `cookies.secure.dropped`.
 */
function refused(cookies: ParsedCookie[]): Finding[] {
  const noneInsecure = cookies.filter((c) => c.sameSite === 'none' && !c.secure);
  const badPrefix = cookies.filter(breaksPrefix);
  return [
    ...(noneInsecure.length
      ? [
          fail(
            'cookies.samesite.none-insecure',
            'cookies',
            'Cookies with SameSite=None but without Secure, which browsers refuse',
            'medium',
            names(noneInsecure),
            'Add `Secure` to every `SameSite=None` cookie (or use SameSite=Lax).',
            -20,
          ),
        ]
      : []),
    ...(badPrefix.length
      ? [
          fail(
            'cookies.prefix.invalid',
            'cookies',
            'Cookies break the rules of their __Secure- or __Host- prefix, so browsers refuse them',
            'medium',
            names(badPrefix),
            'A `__Secure-` cookie needs `Secure`; a `__Host-` cookie needs `Secure`, `Path=/` and no `Domain`.',
            -20,
          ),
        ]
      : []),
  ];
}

/**
 * Cookies without Secure (HTTP Observatory): a session cookie costs -40, any other -20; under
 * HSTS, which keeps the browser on https, -10 and -5.
 */
function withoutSecure(cookies: ParsedCookie[], hsts: boolean): Finding[] {
  const sessions = cookies.filter((c) => isSessionCookie(c.name));
  const others = cookies.filter((c) => !isSessionCookie(c.name));
  const underHsts = hsts ? ' (HSTS keeps browsers on https, which softens it)' : '';
  return [
    ...(sessions.length
      ? [
          fail(
            'cookies.secure.session-missing',
            'cookies',
            `Session cookies without the Secure flag${underHsts}`,
            hsts ? 'low' : 'high',
            names(sessions),
            'Add `Secure` to session and sign-in cookies so they are never sent over plain HTTP.',
            hsts ? -10 : -40,
          ),
        ]
      : []),
    ...(others.length
      ? [
          fail(
            'cookies.secure.missing',
            'cookies',
            `Cookies without the Secure flag${underHsts}`,
            hsts ? 'low' : 'medium',
            names(others),
            'Add `Secure` to every cookie so it is never sent over plain HTTP.',
            hsts ? -5 : -20,
          ),
        ]
      : []),
  ];
}

function sameSiteFindings(cookies: ParsedCookie[]): Finding[] {
  const invalid = cookies.filter((c) => c.sameSite !== null && !SAME_SITE_VALUES.has(c.sameSite));
  const csrfNoSameSite = cookies.filter((c) => isCsrfToken(c.name) && c.sameSite === null);
  const noSameSite = cookies.filter((c) => !isCsrfToken(c.name) && c.sameSite === null);
  const out: Finding[] = [];
  if (invalid.length)
    out.push(
      fail(
        'cookies.samesite.invalid',
        'cookies',
        'Cookies with a SameSite value browsers do not know',
        'medium',
        invalid.map((c) => `${c.name} (SameSite=${c.sameSite})`).join(', '),
        'Use `SameSite=Strict`, `Lax` or `None` (with Secure).',
        -20,
      ),
    );
  if (csrfNoSameSite.length)
    out.push(
      fail(
        'cookies.samesite.csrf-missing',
        'cookies',
        'Anti-CSRF tokens without SameSite',
        'medium',
        names(csrfNoSameSite),
        'Add `SameSite=Strict` (or Lax) to the anti-CSRF cookie.',
        -20,
      ),
    );
  if (noSameSite.length)
    out.push(
      fail(
        'cookies.samesite.missing',
        'cookies',
        'Cookies without SameSite',
        'low',
        names(noSameSite),
        'Add `SameSite=Lax` (or Strict) to cookies.',
        -5,
      ),
    );
  return out;
}

/**
 * Cookies (HTTP Observatory "cookies"): Secure on every cookie; HttpOnly on session cookies (an
 * anti-CSRF token or a preference may be read by scripts); a valid SameSite on every cookie,
 * which an anti-CSRF token needs most. `overHttps` is false when the site answers over plain
 * HTTP only; `hsts` is true when its https answer carries a Strict-Transport-Security browsers keep.
 */
export function cookieChecks(setCookieLines: string[], overHttps: boolean, hsts = false): Finding[] {
  if (setCookieLines.length === 0)
    return [pass('cookies.none', 'cookies', 'No cookies are set', 'no Set-Cookie header')];
  const all = setCookieLines.map(parseSetCookie);
  const out: Finding[] = overHttps ? [] : dropped(all);
  const received = overHttps ? all : all.filter((c) => !c.secure);
  out.push(...refused(received));
  const kept = received.filter((c) => !breaksPrefix(c) && !(c.sameSite === 'none' && !c.secure));
  out.push(
    ...withoutSecure(
      kept.filter((c) => !c.secure),
      hsts,
    ),
  );
  const scriptableSessions = kept.filter((c) => isSessionCookie(c.name) && !c.httpOnly);
  if (scriptableSessions.length)
    out.push(
      fail(
        'cookies.httponly.missing',
        'cookies',
        'Session cookies readable by scripts (no HttpOnly)',
        'high',
        names(scriptableSessions),
        'Add `HttpOnly` to session and sign-in cookies, so an injected script cannot steal the session.',
        -30,
      ),
    );
  out.push(...sameSiteFindings(kept));
  if (out.length === 0) {
    const scriptable = all.filter((c) => !c.httpOnly);
    const note = scriptable.length ? `; readable by scripts, not session cookies: ${names(scriptable)}` : '';
    out.push(
      pass(
        'cookies.ok',
        'cookies',
        'Every cookie is Secure and SameSite, session cookies HttpOnly',
        `${names(all)}${note}`,
        5,
      ),
    );
  }
  return out;
}
