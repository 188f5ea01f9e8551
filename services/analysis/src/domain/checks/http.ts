import type { Finding } from '@meridian/contracts';
import type { HttpObservation, Response } from '../observations.js';
import { bannerChecks } from './banners.js';
import { corsChecks } from './cors.js';
import { cspChecks } from './csp.js';
import { fail, notRun, pass } from './finding.js';
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
  if (first && new URL(first.url).protocol !== 'https:')
    return [
      fail(
        'http.redirect.initial-not-https',
        'http',
        'HTTP first redirects to another plain-HTTP address before HTTPS',
        'low',
        chain,
        `Answer http://${domain}/ with a 301 straight to https://${domain}/.`,
        -10,
      ),
    ];
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

/** A home page answering 5xx shows an error page, not the site: nothing on it can be graded. */
export const isServerError = (page: Response): boolean => page.status >= 500;

/** The finding that says the site could not be graded (domain/grade.ts then gives no score). */
export const UNGRADED_FINDING = 'http.page.error';

export function pageErrorChecks(page: Response): Finding[] {
  if (!isServerError(page)) return [];
  return [
    fail(
      UNGRADED_FINDING,
      'http',
      'The home page answers with a server error, so the site could not be graded',
      'high',
      `${page.status} ${page.url}`,
      'Fix the server error so the home page answers 200, then run the audit again.',
    ),
  ];
}

/** What a stage that reads the home page reports instead of grading an error page. */
export function notGradedOnError(stage: 'headers' | 'cookies' | 'content', page: Response): Finding {
  return notRun(
    `${stage}.page-error`,
    stage,
    `The ${stage} checks did not run: the home page is an error page`,
    `the home page answered ${page.status}`,
    'Fix the server error so the home page answers 200, then run the audit again.',
  );
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
