import { CLIENT_ADDRESS_HEADER } from '@meridian/contracts';
import { rateLimitOf, retryAfterOf, type RateLimitState } from '../domain/rate-limit.js';
import type { Refusal } from '../domain/tool-error.js';

/** Who the MCP request came from: its API key and the address the gateway saw. */
export interface CallerCredentials {
  key?: string;
  /** X-Forwarded-For the gateway wrote on the MCP request, passed on (see README: client address). */
  forwardedFor?: string;
  /**
   * That address signed with the internal secret for one call (its method and target, a fresh
   * nonce), which the gateway believes once (CLIENT_ADDRESS_HEADER).
   */
  vouch?: (method: string, target: string) => string;
}

export type DataAnswer =
  { ok: true; body: Record<string, unknown>; rateLimit?: RateLimitState } | { ok: false; refusal: Refusal };

export interface DataApiOptions {
  /** The public API (the gateway): MERIDIAN_API_URL. */
  baseUrl: string;
  timeoutMs: number;
  userAgent: string;
}

/**
 * The client of the public data API (data-api-interface 4.1, 4.3), called through the gateway
 * with the caller's own key: plan gate, rate limits and x402 are the HTTP ones, applied by the
 * gateway. The key goes in `X-API-Key` and nowhere else (never a log line, never an answer).
 */
export class DataApi {
  constructor(private readonly options: DataApiOptions) {}

  async get(
    path: string,
    query: Record<string, string | undefined>,
    caller: CallerCredentials,
  ): Promise<DataAnswer> {
    const url = new URL(path, this.options.baseUrl);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (caller.key) headers['x-api-key'] = caller.key;
    if (caller.forwardedFor) headers['x-forwarded-for'] = caller.forwardedFor;
    if (caller.vouch) headers[CLIENT_ADDRESS_HEADER] = caller.vouch('GET', `${url.pathname}${url.search}`);
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch {
      return { ok: false, refusal: { status: 503, keySent: caller.key !== undefined } };
    }
    const body: unknown = await res.json().catch(() => undefined);
    if (res.ok && body && typeof body === 'object')
      return {
        ok: true,
        body: body as Record<string, unknown>,
        rateLimit: rateLimitOf((name) => res.headers.get(name)),
      };
    const retryAfter = retryAfterOf(res.headers.get('retry-after'));
    return {
      ok: false,
      refusal: {
        status: res.ok ? 502 : res.status,
        body,
        keySent: caller.key !== undefined,
        ...(retryAfter !== undefined ? { retryAfter } : {}),
      },
    };
  }
}
