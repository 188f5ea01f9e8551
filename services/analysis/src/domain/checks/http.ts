import type { Finding } from '@meridian/contracts';
import type { HttpObservation, Response } from '../observations.js';
import { bannerChecks } from './banners.js';
import { corsChecks } from './cors.js';
import { cspChecks } from './csp.js';
import { fail, pass } from './finding.js';
import { framingChecks } from './framing.js';
import { hstsChecks } from './hsts.js';
import { isolationChecks, xctoChecks } from './isolation.js';
import { referrerChecks } from './referrer.js';

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

/**
 * The headers of the final response (HTTPS when the site answers it), each family in its own
 * module, and the passive CORS preflight.
 */
export function headerChecks(page: Response, preflight: Response | null): Finding[] {
  return [
    ...cspChecks(page),
    ...hstsChecks(page),
    ...xctoChecks(page),
    ...framingChecks(page),
    ...referrerChecks(page),
    ...isolationChecks(page),
    ...corsChecks({ page, preflight }),
    ...bannerChecks(page),
  ];
}
