import type { Finding } from '@meridian/contracts';
import { fail, pass } from './finding.js';

export interface ParsedCookie {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | null;
}

export function parseSetCookie(line: string): ParsedCookie {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const name = (pair ?? '').split('=')[0]!.trim();
  const lower = attrs.map((a) => a.toLowerCase());
  const same = lower.find((a) => a.startsWith('samesite='));
  return {
    name,
    secure: lower.includes('secure'),
    httpOnly: lower.includes('httponly'),
    sameSite: same ? same.slice('samesite='.length) : null,
  };
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
 * Cookies (HTTP Observatory "cookies"): Secure on every cookie; HttpOnly on session cookies (an
 * anti-CSRF token or a preference may be read by scripts); SameSite on every cookie, which an
 * anti-CSRF token needs most. `overHttps` is false when the site answers over plain HTTP only.
 */
export function cookieChecks(setCookieLines: string[], overHttps: boolean): Finding[] {
  if (setCookieLines.length === 0)
    return [pass('cookies.none', 'cookies', 'No cookies are set', 'no Set-Cookie header')];
  const all = setCookieLines.map(parseSetCookie);
  const out: Finding[] = overHttps ? [] : dropped(all);
  const kept = overHttps ? all : all.filter((c) => !c.secure);
  const insecure = kept.filter((c) => !c.secure);
  const scriptableSessions = kept.filter((c) => isSessionCookie(c.name) && !c.httpOnly);
  const csrfNoSameSite = kept.filter((c) => isCsrfToken(c.name) && c.sameSite === null);
  const noSameSite = kept.filter(
    (c) => !isCsrfToken(c.name) && (c.sameSite === null || (c.sameSite === 'none' && !c.secure)),
  );
  if (insecure.length)
    out.push(
      fail(
        'cookies.secure.missing',
        'cookies',
        'Cookies without the Secure flag',
        'medium',
        names(insecure),
        'Add `Secure` to every cookie so it is never sent over plain HTTP.',
        -20,
      ),
    );
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
