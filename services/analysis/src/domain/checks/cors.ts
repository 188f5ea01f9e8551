import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass } from './finding.js';
import { headerOf } from './page.js';

/** The foreign origin named in the passive preflight; a reserved name that is nobody's site. */
export const PREFLIGHT_ORIGIN = 'https://preflight.example';

/** What the page and a CORS preflight from PREFLIGHT_ORIGIN (OPTIONS, as a browser sends it) answered. */
interface CorsObservation {
  page: Response;
  /** null when the preflight got no answer. */
  preflight: Response | null;
}

const allowOrigin = (r: Response) => headerOf(r.headers, 'access-control-allow-origin').trim();
const allowCredentials = (r: Response) =>
  headerOf(r.headers, 'access-control-allow-credentials').trim().toLowerCase() === 'true';

/**
 * Passive CORS check of every tier (HTTP Observatory "cross-origin-resource-sharing"): one
 * preflight a browser would send, nothing a visitor could not do.
 */
export function corsChecks({ page, preflight }: CorsObservation): Finding[] {
  if (preflight && allowOrigin(preflight).toLowerCase() === PREFLIGHT_ORIGIN && allowCredentials(preflight))
    return [
      fail(
        'headers.cors.reflected-credentials',
        'headers',
        'Any site may read answers meant for the signed-in visitor (origin reflected with credentials)',
        'critical',
        `preflight from ${PREFLIGHT_ORIGIN} answered Access-Control-Allow-Origin: ${allowOrigin(preflight)}, Access-Control-Allow-Credentials: true`,
        'Answer Access-Control-Allow-Origin only for a fixed list of trusted origins, and send Access-Control-Allow-Credentials only to them.',
        -50,
      ),
    ];
  const universal = [page, preflight].find((r) => r !== null && allowOrigin(r) === '*');
  if (universal)
    return [
      fail(
        'headers.cors.universal',
        'headers',
        'Any site may read the answers (Access-Control-Allow-Origin: *)',
        'low',
        `${universal === page ? 'the page' : 'the preflight'} answered Access-Control-Allow-Origin: *`,
        'Send Access-Control-Allow-Origin: * only on public data; name the trusted origins elsewhere.',
      ),
    ];
  if (preflight && allowOrigin(preflight).toLowerCase() === PREFLIGHT_ORIGIN)
    return [
      fail(
        'headers.cors.reflected',
        'headers',
        'Any origin is allowed to read the answers (origin reflected, without credentials)',
        'info',
        `preflight from ${PREFLIGHT_ORIGIN} answered Access-Control-Allow-Origin: ${allowOrigin(preflight)}`,
        'Answer Access-Control-Allow-Origin only for a fixed list of trusted origins.',
      ),
    ];
  const named = allowOrigin(page) || (preflight ? allowOrigin(preflight) : '');
  return [
    pass(
      'headers.cors.ok',
      'headers',
      named ? 'Cross-origin reads are limited to named origins' : 'No cross-origin reads are allowed',
      named
        ? `Access-Control-Allow-Origin: ${named}`
        : preflight
          ? 'no Access-Control-Allow-Origin'
          : 'no Access-Control-Allow-Origin on the page; the preflight got no answer',
    ),
  ];
}
