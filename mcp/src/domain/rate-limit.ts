/** The key's rate-limit state after a call, from the data API's RateLimit-* headers (data-api-interface 3). */
export interface RateLimitState {
  limit: number;
  remaining: number;
  reset_s: number;
}

const count = (value: string | null): number | undefined => {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** The state the headers tell (`get` reads one header, null when absent); undefined without a usable limit. */
export function rateLimitOf(get: (name: string) => string | null): RateLimitState | undefined {
  const limit = count(get('ratelimit-limit'));
  if (limit === undefined) return undefined;
  return {
    limit,
    remaining: count(get('ratelimit-remaining')) ?? 0,
    reset_s: count(get('ratelimit-reset')) ?? 0,
  };
}

/** Seconds to wait from a Retry-After header in its delay-seconds form; undefined otherwise. */
export function retryAfterOf(value: string | null): number | undefined {
  return count(value);
}
