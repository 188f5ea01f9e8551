import { guardedFetch, type ScannerOptions, type SeenResponse } from './http.js';

/**
 * The CORS preflight a browser sends before a cross-origin request from `origin`: OPTIONS with
 * Origin and Access-Control-Request-Method, redirects not followed. null when nothing answers.
 */
export async function corsPreflight(
  options: ScannerOptions,
  url: string,
  origin: string,
): Promise<SeenResponse | null> {
  const answer = await guardedFetch(options, url, {
    method: 'OPTIONS',
    follow: false,
    headers: { origin, 'access-control-request-method': 'GET' },
  }).catch(() => null);
  return answer?.final ?? null;
}
