import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass } from './finding.js';
import { headerValues, metaTags } from './page.js';

const PRIVATE = ['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'];
/** Policies that send the origin or the full URL to other sites, even from HTTPS to HTTP. */
const LEAKY = ['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade'];

/**
 * Referrer-Policy (HTTP Observatory "referrer-policy"): the header and `<meta name="referrer">`,
 * the meta tag last; browsers apply the last value they recognise, so unknown tokens (kept as
 * fallbacks for old browsers) are skipped.
 */
export function referrerChecks(page: Response): Finding[] {
  const values = [
    ...headerValues(page.headers, 'referrer-policy'),
    ...metaTags(page.body)
      .filter((m) => m.name === 'referrer' && m.content)
      .map((m) => m.content!),
  ];
  const stated = values.join(', ');
  if (!stated.trim())
    return [
      fail(
        'headers.referrer.missing',
        'headers',
        'No Referrer-Policy',
        'info',
        'header absent',
        'Send `Referrer-Policy: strict-origin-when-cross-origin`.',
      ),
    ];
  const policy =
    stated
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((s) => PRIVATE.includes(s) || LEAKY.includes(s))
      .pop() ?? null;
  if (policy && PRIVATE.includes(policy))
    return [pass('headers.referrer.ok', 'headers', `Referrer-Policy is ${policy}`, stated, 5)];
  if (policy)
    return [
      fail(
        'headers.referrer.unsafe',
        'headers',
        `Referrer-Policy ${policy} sends the site's addresses to other sites`,
        'low',
        stated,
        'Use `Referrer-Policy: strict-origin-when-cross-origin`.',
        -5,
      ),
    ];
  return [
    fail(
      'headers.referrer.invalid',
      'headers',
      'Referrer-Policy names no policy browsers know',
      'low',
      stated,
      'Use `Referrer-Policy: strict-origin-when-cross-origin`.',
      -5,
    ),
  ];
}
