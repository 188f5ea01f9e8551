import type { Finding } from '@meridian/contracts';
import type { Headers, HttpObservation, Response } from '../observations.js';
import { fail, pass, quote } from './finding.js';

export function headerOf(headers: Headers, name: string): string {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** HTTPS reachability and the redirection from http:// (HTTP Observatory "redirection"). */
export function redirectChecks(obs: HttpObservation, domain: string): Finding[] {
  if (!obs.secure)
    return [
      fail(
        'http.https.unavailable',
        'http',
        'The site does not answer over HTTPS',
        'critical',
        obs.secure_error ?? 'no answer',
        'Serve the site over HTTPS with a valid certificate.',
        -50,
      ),
    ];
  if (!obs.plain)
    return [
      pass(
        'http.redirect.no-http',
        'http',
        'The site does not listen on plain HTTP',
        obs.plain_error ?? 'no answer',
      ),
    ];
  const chain = obs.plain.map((r) => `${r.status} ${r.url}`).join(' → ');
  const final = obs.plain[obs.plain.length - 1]!;
  if (!final.url.startsWith('https:'))
    return [
      fail(
        'http.redirect.missing',
        'http',
        'HTTP does not redirect to HTTPS',
        'medium',
        chain,
        'Answer every http:// request with a 301 to the same URL on https://.',
        -20,
      ),
    ];
  const first = obs.plain[1];
  if (first && new URL(first.url).hostname !== domain)
    return [
      fail(
        'http.redirect.other-host',
        'http',
        'HTTP first redirects to another host, so HSTS cannot apply',
        'low',
        chain,
        `Redirect http://${domain}/ to https://${domain}/ first, then elsewhere.`,
        -5,
      ),
    ];
  return [pass('http.redirect.https', 'http', 'HTTP redirects to HTTPS', chain)];
}

function cspDirectives(csp: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of csp.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !map.has(name.toLowerCase()))
      map.set(
        name.toLowerCase(),
        values.map((v) => v.toLowerCase()),
      );
  }
  return map;
}

/** The security headers of the final HTTPS response. */
export function headerChecks(res: Response): Finding[] {
  const out: Finding[] = [];
  const h = (n: string) => headerOf(res.headers, n);

  const csp = h('content-security-policy');
  const directives = cspDirectives(csp);
  if (!csp) {
    out.push(
      fail(
        'headers.csp.missing',
        'headers',
        'No Content-Security-Policy',
        'medium',
        'header absent',
        "Send a Content-Security-Policy, e.g. `default-src 'self'; object-src 'none'; frame-ancestors 'self'`.",
        -25,
      ),
    );
  } else {
    const scripts = directives.get('script-src') ?? directives.get('default-src') ?? null;
    const unsafe =
      scripts === null ||
      scripts.some((v) => ["'unsafe-inline'", "'unsafe-eval'", '*', 'http:', 'https:', 'data:'].includes(v));
    const strictObjects = (directives.get('object-src') ?? directives.get('default-src') ?? []).includes(
      "'none'",
    );
    if (unsafe)
      out.push(
        fail(
          'headers.csp.unsafe',
          'headers',
          'Content-Security-Policy allows unsafe scripts',
          'medium',
          quote(csp),
          "Remove 'unsafe-inline', 'unsafe-eval' and wildcard sources from script-src; use nonces or hashes.",
          -10,
        ),
      );
    else if (strictObjects)
      out.push(
        pass(
          'headers.csp.strict',
          'headers',
          'Content-Security-Policy restricts scripts and objects',
          quote(csp),
          5,
        ),
      );
    else
      out.push(
        pass('headers.csp.present', 'headers', 'Content-Security-Policy restricts scripts', quote(csp)),
      );
  }

  const hsts = h('strict-transport-security');
  const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts)?.[1] ?? NaN);
  if (!hsts || Number.isNaN(maxAge))
    out.push(
      fail(
        'headers.hsts.missing',
        'headers',
        'No Strict-Transport-Security',
        'medium',
        hsts || 'header absent',
        'Send `Strict-Transport-Security: max-age=63072000; includeSubDomains` on HTTPS responses.',
        -20,
      ),
    );
  else if (maxAge < 15_768_000)
    out.push(
      fail(
        'headers.hsts.short',
        'headers',
        'Strict-Transport-Security max-age is under six months',
        'low',
        hsts,
        'Raise max-age to at least 15768000 (six months); two years is usual.',
        -10,
      ),
    );
  else if (/includesubdomains/i.test(hsts) && /preload/i.test(hsts) && maxAge >= 31_536_000)
    out.push(
      pass(
        'headers.hsts.preload',
        'headers',
        'Strict-Transport-Security is long, covers subdomains and asks for preload',
        hsts,
        5,
      ),
    );
  else
    out.push(
      pass('headers.hsts.ok', 'headers', 'Strict-Transport-Security is set for at least six months', hsts),
    );

  const xcto = h('x-content-type-options');
  out.push(
    xcto.trim().toLowerCase() === 'nosniff'
      ? pass('headers.xcto.ok', 'headers', 'X-Content-Type-Options is nosniff', xcto)
      : fail(
          'headers.xcto.missing',
          'headers',
          'X-Content-Type-Options is not nosniff',
          'low',
          xcto || 'header absent',
          'Send `X-Content-Type-Options: nosniff`.',
          -5,
        ),
  );

  const ancestors = directives.get('frame-ancestors');
  const xfo = h('x-frame-options').trim().toUpperCase();
  if (
    ancestors &&
    (ancestors.includes("'none'") || ancestors.every((v) => v === "'self'" || v.startsWith('https://')))
  )
    out.push(
      pass(
        'headers.framing.csp',
        'headers',
        'CSP frame-ancestors restricts framing',
        `frame-ancestors ${ancestors.join(' ')}`,
        5,
      ),
    );
  else if (xfo === 'DENY' || xfo === 'SAMEORIGIN')
    out.push(pass('headers.framing.xfo', 'headers', 'X-Frame-Options restricts framing', xfo));
  else
    out.push(
      fail(
        'headers.framing.missing',
        'headers',
        'The page may be framed by any site (clickjacking)',
        'medium',
        `X-Frame-Options: ${xfo || 'absent'}; frame-ancestors: ${ancestors?.join(' ') ?? 'absent'}`,
        "Add `frame-ancestors 'self'` to the CSP (or `X-Frame-Options: DENY`).",
        -20,
      ),
    );

  const referrer =
    h('referrer-policy')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean)
      .pop() ?? '';
  if (['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'].includes(referrer))
    out.push(pass('headers.referrer.ok', 'headers', `Referrer-Policy is ${referrer}`, referrer, 5));
  else if (referrer === 'unsafe-url' || referrer === 'no-referrer-when-downgrade')
    out.push(
      fail(
        'headers.referrer.unsafe',
        'headers',
        `Referrer-Policy ${referrer} leaks full URLs`,
        'low',
        referrer,
        'Use `Referrer-Policy: strict-origin-when-cross-origin`.',
        -5,
      ),
    );
  else
    out.push(
      fail(
        'headers.referrer.missing',
        'headers',
        'No Referrer-Policy',
        'info',
        referrer || 'header absent',
        'Send `Referrer-Policy: strict-origin-when-cross-origin`.',
      ),
    );

  const permissions = h('permissions-policy');
  out.push(
    permissions
      ? pass('headers.permissions.present', 'headers', 'Permissions-Policy is set', quote(permissions))
      : fail(
          'headers.permissions.missing',
          'headers',
          'No Permissions-Policy',
          'info',
          'header absent',
          'Send a Permissions-Policy that turns off features the site does not use, e.g. `camera=(), microphone=(), geolocation=()`.',
        ),
  );
  const coop = h('cross-origin-opener-policy').toLowerCase();
  out.push(
    coop.startsWith('same-origin')
      ? pass('headers.coop.present', 'headers', 'Cross-Origin-Opener-Policy isolates the window', coop)
      : fail(
          'headers.coop.missing',
          'headers',
          'No Cross-Origin-Opener-Policy',
          'info',
          coop || 'header absent',
          'Send `Cross-Origin-Opener-Policy: same-origin`.',
        ),
  );
  const corp = h('cross-origin-resource-policy').toLowerCase();
  out.push(
    corp === 'same-origin' || corp === 'same-site'
      ? pass('headers.corp.present', 'headers', 'Cross-Origin-Resource-Policy limits embedding', corp)
      : fail(
          'headers.corp.missing',
          'headers',
          'No restrictive Cross-Origin-Resource-Policy',
          'info',
          corp || 'header absent',
          'Send `Cross-Origin-Resource-Policy: same-origin` (or same-site).',
        ),
  );
  return out;
}

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

/** Secure, HttpOnly and SameSite on every cookie the site set along the way. */
export function cookieChecks(setCookieLines: string[]): Finding[] {
  if (setCookieLines.length === 0)
    return [pass('cookies.none', 'cookies', 'No cookies are set', 'no Set-Cookie header')];
  const cookies = setCookieLines.map(parseSetCookie);
  const names = (list: ParsedCookie[]) => list.map((c) => c.name).join(', ');
  const out: Finding[] = [];
  const insecure = cookies.filter((c) => !c.secure);
  const scriptable = cookies.filter((c) => !c.httpOnly);
  const noSameSite = cookies.filter((c) => c.sameSite === null || (c.sameSite === 'none' && !c.secure));
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
  if (scriptable.length)
    out.push(
      fail(
        'cookies.httponly.missing',
        'cookies',
        'Cookies readable by scripts (no HttpOnly)',
        'low',
        names(scriptable),
        'Add `HttpOnly` to session and authentication cookies.',
        -10,
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
  if (out.length === 0)
    out.push(
      pass('cookies.ok', 'cookies', 'Every cookie is Secure, HttpOnly and SameSite', names(cookies), 5),
    );
  return out;
}
