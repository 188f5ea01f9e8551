/**
 * The typed, actionable error of a tool call (data-api-interface 4.6, 7): what the HTTP API
 * answered, turned into what an agent can branch on and what it should do next.
 */
export interface ToolError {
  error_category: string;
  status: number;
  detail: string;
  what_to_do: string;
  retry_after?: number;
}

export interface Refusal {
  status: number;
  /** The problem+json body (or the x402 payment-required object on a 402), when there was one. */
  body?: unknown;
  /** Seconds, from Retry-After. */
  retryAfter?: number;
  /** Whether the MCP request carried an API key. */
  keySent: boolean;
}

const KEY_HOWTO =
  'over Streamable HTTP send it as `Authorization: Bearer <key>` or `X-API-Key: <key>` on the MCP request; over stdio start the server with `--key <key>` (or MERIDIAN_API_KEY)';

function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

export function toolError(refusal: Refusal): ToolError {
  const { status, body } = refusal;
  const category = text(field(body, 'error_category'));
  const detail = text(field(body, 'detail')) ?? text(field(body, 'error'));
  const retryAfter = refusal.retryAfter ?? (field(body, 'retry_after') as number | undefined);
  const base = (error_category: string, fallback: string, what_to_do: string): ToolError => ({
    error_category,
    status,
    detail: detail ?? fallback,
    what_to_do,
    ...(typeof retryAfter === 'number' ? { retry_after: retryAfter } : {}),
  });
  switch (status) {
    case 401:
      return base(
        category ?? 'unauthorized',
        'The API key is missing or invalid.',
        `Stop and obtain a valid API key (sign in, then POST /v1/keys; a free key needs no card), then ${KEY_HOWTO}. Do not retry with the same key.`,
      );
    case 402:
      return base(
        refusal.keySent ? 'payment_required' : 'api_key_required',
        'This metric is priced and the call carried no API key.',
        refusal.keySent
          ? 'The API asked for an x402 payment, which these tools cannot make: use a key whose plan covers the metric.'
          : `No API key reached the data API. Get one (a free key needs no card) and ${KEY_HOWTO}. Paying per call (x402) is possible over plain HTTP only.`,
      );
    case 403:
      return base(
        category ?? 'tier_forbidden',
        'The plan of this API key does not include the metric.',
        'Upgrade the plan of the account to the plan named in detail (or use a key of such an account); do not retry, and browse_catalog shows the plan each metric needs.',
      );
    case 404:
      return category === 'not_yet_available'
        ? base(
            category,
            'The metric is planned: its data is not collected yet.',
            'The path is right but there is no data yet; pick a live metric (browse_catalog with status live).',
          )
        : base(
            category ?? 'not_found',
            'Nothing was found for this question.',
            'Check the entity and source against browse_catalog or the symbols resource, or try another venue.',
          );
    case 429:
      return base(
        category ?? 'rate_limit',
        "The key's requests per minute are spent.",
        `Wait ${typeof retryAfter === 'number' ? `${retryAfter} s` : 'the retry_after seconds'} and retry the same call; a higher plan allows more requests per minute.`,
      );
    case 400:
      return base(
        category ?? 'validation_failed',
        'The API refused the arguments.',
        'Change the arguments as detail says (browse_catalog lists the entities, sources and intervals of each metric).',
      );
    default:
      return status >= 500
        ? base(
            category ?? 'upstream_unavailable',
            'The data API did not answer.',
            'Retry shortly; the call reads only, so retrying is safe.',
          )
        : base(
            category ?? 'request_failed',
            `The data API answered ${status}.`,
            'Check the arguments and retry.',
          );
  }
}

/** An argument combination the catalogue does not serve, refused before any call. */
export function invalidArgument(detail: string, what_to_do: string): ToolError {
  return { error_category: 'invalid_argument', status: 400, detail, what_to_do };
}

export function invalidCursor(): ToolError {
  return {
    error_category: 'invalid_cursor',
    status: 400,
    detail: 'The cursor is altered, expired or belongs to another question.',
    what_to_do:
      'Repeat the call without cursor, with the same arguments, and use the meta.next_cursor it answers.',
  };
}
