import { UpstreamError } from './upstream-http.js';

/**
 * The codes each venue writes in the body of an answer, often under HTTP 200, when the caller is
 * over its rate limit. One table, so that a venue's spot and futures connectors cannot disagree.
 */
const RATE_LIMIT_CODES: Readonly<Record<string, readonly string[]>> = {
  // Too many visits; the IP's limit.
  bybit: ['10006', '10018'],
  // Too many requests; the endpoint's limit for the account or IP.
  okx: ['50011', '50061'],
  // too_many_requests, under HTTP 200, 400 or 429.
  deribit: ['10028'],
  // Kraken's throttle message may carry a time after a colon.
  kraken: ['EAPI:Rate limit exceeded', 'EGeneral:Too many requests', 'EService:Throttled'],
};

/** Whether `code`, as the venue wrote it, says the caller is over the venue's rate limit. */
export function rateLimitCode(venue: string, code: string): boolean {
  return (RATE_LIMIT_CODES[venue] ?? []).some((c) => code === c || code.startsWith(`${c}:`));
}

/**
 * A venue's refusal given in the body of its answer (Bybit `retCode`, OKX `code`, Deribit's
 * JSON-RPC `error`, Kraken `error`, Bitstamp `status: error`): a rate limit when any of its codes
 * is one of the venue's, else an error. `where` names the request (a path) in the message.
 */
export function venueRefusal(
  venue: string,
  codes: string | readonly string[],
  message: string,
  { where, status, waitMs }: { where?: string; status?: number; waitMs?: number } = {},
): UpstreamError {
  const all = typeof codes === 'string' ? [codes] : codes;
  const limited = all.some((c) => rateLimitCode(venue, c));
  return new UpstreamError(
    limited ? 'rate_limited' : 'http_error',
    `${where ? `${where}: ` : ''}${venue} refused: ${all.join(', ')} ${message}`.trim().slice(0, 300),
    status,
    limited ? waitMs : undefined,
  );
}
