import { retryAfterMs, type PollFailureKind } from '../../domain/connector-health.js';

/** A poll's failure that says what went wrong, for the connector's health (domain/connector-health.ts). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: PollFailureKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
    /** The start of an error status's body, for a connector that reads the upstream's own error format. */
    readonly body?: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The statuses by which an upstream refuses our rate: 429, Binance's 418 ban, 451 refused where we are. */
const RATE_LIMITED = new Set([418, 429, 451]);

/** How connectors read an upstream: GET only, a timeout, and a typed failure for every way it goes wrong. */
export interface UpstreamHttp {
  text(url: string, headers?: Record<string, string>): Promise<string>;
  json(url: string, headers?: Record<string, string>): Promise<unknown>;
}

export interface UpstreamHttpOptions {
  timeoutMs: number;
  userAgent: string;
}

/** Only the path and the query's names go into a failure message: a query may carry an API key. */
function described(url: string): string {
  const u = new URL(url);
  const names = [...u.searchParams.keys()];
  return `${u.host}${u.pathname}${names.length ? `?${names.join('&')}` : ''}`;
}

export function createUpstreamHttp({ timeoutMs, userAgent }: UpstreamHttpOptions): UpstreamHttp {
  const text = async (url: string, headers: Record<string, string> = {}): Promise<string> => {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { 'user-agent': userAgent, accept: '*/*', ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      // An aborted fetch throws a DOMException, which is not an Error on every Node line.
      const timedOut = (err as { name?: unknown } | null)?.name === 'TimeoutError';
      const reason = timedOut ? `no answer in ${timeoutMs} ms` : 'unreachable';
      throw new UpstreamError('unreachable', `${described(url)}: ${reason}`);
    }
    const body = await res.text().catch(() => '');
    if (RATE_LIMITED.has(res.status))
      throw new UpstreamError(
        'rate_limited',
        `${described(url)} answered ${res.status}`,
        res.status,
        retryAfterMs(res.headers.get('retry-after'), Date.now()),
      );
    if (!res.ok)
      throw new UpstreamError(
        'http_error',
        `${described(url)} answered ${res.status}`,
        res.status,
        undefined,
        body.slice(0, 2000),
      );
    return body;
  };
  return {
    text,
    async json(url, headers) {
      const body = await text(url, { accept: 'application/json', ...headers });
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw new UpstreamError('malformed', `${described(url)} answered a body that is not JSON`);
      }
    },
  };
}
