import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { enforcedPolicies } from './csp.js';
import { fail, pass } from './finding.js';
import { headerOf } from './page.js';

const restricts = (ancestors: string[]) =>
  ancestors.includes("'none'") || ancestors.every((v) => v === "'self'" || v.startsWith('https://'));

/**
 * Framing (HTTP Observatory "x-frame-options"). frame-ancestors counts from a header only: browsers
 * ignore it in `<meta>`. Stricter than the Observatory on purpose: `X-Frame-Options: ALLOW-FROM`
 * protects nothing in current browsers, which ignore it, so it is no protection here; and a
 * frame-ancestors that lets any site frame the page wins over `X-Frame-Options: DENY`, which
 * browsers then ignore (both the Observatory and our earlier rule credited the XFO).
 */
export function framingChecks(page: Response): Finding[] {
  const ancestors = enforcedPolicies(page)
    .filter((p) => p.source === 'header')
    .map((p) => p.directives.get('frame-ancestors'))
    .find((a) => a !== undefined);
  const xfo = headerOf(page.headers, 'x-frame-options').trim().toUpperCase();
  if (ancestors && restricts(ancestors))
    return [
      pass(
        'headers.framing.csp',
        'headers',
        'CSP frame-ancestors restricts framing',
        `frame-ancestors ${ancestors.join(' ')}`,
        5,
      ),
    ];
  // Browsers obey frame-ancestors and ignore X-Frame-Options whenever both are sent (CSP 3, 6.4.2).
  if (!ancestors && (xfo === 'DENY' || xfo === 'SAMEORIGIN'))
    return [pass('headers.framing.xfo', 'headers', 'X-Frame-Options restricts framing', xfo)];
  const ignored = ancestors
    ? xfo
      ? ' (ignored: browsers obey frame-ancestors when both are sent)'
      : ''
    : xfo.startsWith('ALLOW-FROM')
      ? ' (ALLOW-FROM is ignored by current browsers)'
      : '';
  return [
    fail(
      'headers.framing.missing',
      'headers',
      'The page may be framed by any site (clickjacking)',
      'medium',
      `X-Frame-Options: ${xfo || 'absent'}${ignored}; frame-ancestors: ${ancestors?.join(' ') ?? 'absent'}`,
      xfo.startsWith('ALLOW-FROM')
        ? "Replace ALLOW-FROM with CSP `frame-ancestors 'self' https://allowed.example`."
        : "Add `frame-ancestors 'self'` to the CSP (or `X-Frame-Options: DENY`).",
      -20,
    ),
  ];
}
