/** Headers a browser client may read from our answers (payment, rate-limit and 401 challenge fields). */
export const EXPOSED_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'WWW-Authenticate',
  'X-Request-Id',
].join(', ');

const ALLOWED_HEADERS = [
  'Authorization',
  'X-API-Key',
  'Content-Type',
  'PAYMENT-SIGNATURE',
  'X-PAYMENT',
  'X-Request-Id',
  'traceparent',
].join(', ');

export interface CorsPolicy {
  /** '*' lets any origin read answers without credentials; otherwise the origins that may also send cookies. */
  origins: '*' | ReadonlySet<string>;
}

export function corsPolicy(setting: string): CorsPolicy {
  const trimmed = setting.trim();
  if (trimmed === '*' || trimmed === '') return { origins: '*' };
  return { origins: new Set(trimmed.split(',').map((o) => o.trim().replace(/\/+$/, ''))) };
}

/**
 * CORS fields for a request from `origin` (nothing for a same-origin or non-browser call).
 * A listed origin may send the session cookie; with '*' no credentials are allowed, which is
 * all a key-carrying data client needs.
 */
export function corsHeaders(
  policy: CorsPolicy,
  origin: string | undefined,
  preflight: boolean,
): Record<string, string> | undefined {
  if (!origin) return undefined;
  let headers: Record<string, string>;
  if (policy.origins === '*') headers = { 'access-control-allow-origin': '*' };
  else if (policy.origins.has(origin))
    headers = {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      vary: 'Origin',
    };
  else return undefined;
  if (preflight) {
    headers['access-control-allow-methods'] = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
    headers['access-control-allow-headers'] = ALLOWED_HEADERS;
    headers['access-control-max-age'] = '600';
  } else {
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  }
  return headers;
}

export function isPreflight(method: string | undefined, headers: Record<string, unknown>): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}
