import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass } from './finding.js';
import { headerOf } from './page.js';

/** The HTTP Observatory's minimum: 180 days (15,552,000 s), what people mean by six months. */
const SIX_MONTHS = 15_552_000;
const ONE_YEAR = 31_536_000;
const maxAgeOf = (hsts: string) => Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts)?.[1] ?? NaN);

/** Whether browsers keep this page's HSTS: received over https with a positive max-age. */
export function hstsProtects(page: Response): boolean {
  if (new URL(page.url).protocol !== 'https:') return false;
  return maxAgeOf(headerOf(page.headers, 'strict-transport-security')) > 0;
}

const REMEDY = 'Send `Strict-Transport-Security: max-age=63072000; includeSubDomains` on HTTPS responses.';

/**
 * Strict-Transport-Security (HTTP Observatory "strict-transport-security"). Only a header
 * received over HTTPS counts: browsers ignore it over plain HTTP (RFC 6797 8.1), so a page that
 * reached us over http:// has no HSTS whatever it sends.
 */
export function hstsChecks(page: Response): Finding[] {
  const hsts = headerOf(page.headers, 'strict-transport-security');
  if (new URL(page.url).protocol !== 'https:')
    return [
      fail(
        'headers.hsts.missing',
        'headers',
        'No Strict-Transport-Security over HTTPS',
        'medium',
        hsts
          ? `received over plain HTTP, which browsers ignore (RFC 6797 8.1): ${hsts}`
          : 'the page is served over plain HTTP',
        'Serve the site over HTTPS, redirect http:// to it, and send `Strict-Transport-Security: max-age=63072000; includeSubDomains` there.',
        -20,
      ),
    ];
  const maxAge = maxAgeOf(hsts);
  if (!hsts || Number.isNaN(maxAge))
    return [
      fail(
        'headers.hsts.missing',
        'headers',
        'No Strict-Transport-Security',
        'medium',
        hsts || 'header absent',
        REMEDY,
        -20,
      ),
    ];
  if (maxAge < SIX_MONTHS)
    return [
      fail(
        'headers.hsts.short',
        'headers',
        'Strict-Transport-Security max-age is under six months',
        'low',
        hsts,
        'Raise max-age to at least 15552000 (180 days); two years is usual.',
        -10,
      ),
    ];
  if (/includesubdomains/i.test(hsts) && /preload/i.test(hsts) && maxAge >= ONE_YEAR)
    return [
      pass(
        'headers.hsts.preload',
        'headers',
        'Strict-Transport-Security is long, covers subdomains and asks for preload',
        hsts,
        5,
      ),
    ];
  return [
    pass('headers.hsts.ok', 'headers', 'Strict-Transport-Security is set for at least six months', hsts),
  ];
}
