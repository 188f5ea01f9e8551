import type { Finding } from '@meridian/contracts';
import { guardedFetch, setCookies, type ScannerOptions } from '../../adapters/scanner/http.js';
import { fail, pass } from '../../domain/checks/finding.js';
import { describe } from './context.js';

/** Name=value pairs of Set-Cookie lines, as a Cookie header. */
function cookieHeader(lines: string[]): string {
  return lines
    .map((l) => l.split(';')[0]!.trim())
    .filter((p) => p.includes('='))
    .join('; ');
}

/**
 * Signs in with a form POST (username, password) to the login URL, which must be on the audited
 * domain; carries the cookies it sets. The password goes nowhere else: not to a trace, not to a
 * finding, not to another host (a redirect elsewhere drops it, GuardedFetch drops cookies too).
 */
export async function logIn(
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
