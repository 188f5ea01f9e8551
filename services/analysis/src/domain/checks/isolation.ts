import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass, quote } from './finding.js';
import { headerOf } from './page.js';

/** X-Content-Type-Options (HTTP Observatory "x-content-type-options"). */
export function xctoChecks(page: Response): Finding[] {
  const xcto = headerOf(page.headers, 'x-content-type-options');
  return [
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
  ];
}

/** Permissions-Policy and the cross-origin isolation headers: advice, no points. */
export function isolationChecks(page: Response): Finding[] {
  const permissions = headerOf(page.headers, 'permissions-policy');
  const coop = headerOf(page.headers, 'cross-origin-opener-policy').toLowerCase();
  const corp = headerOf(page.headers, 'cross-origin-resource-policy').toLowerCase();
  return [
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
  ];
}
