import { z } from 'zod';

/** RFC 9457 problem body with the fields of data-api-interface section 7. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  error_category: z.string(),
  retryable: z.boolean(),
  retry_after: z.number().int().optional(),
  instance: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export type Problem = z.infer<typeof problemSchema>;

/** Base of every problem `type` URI: `{errors_base}/<kind>`. */
let errorsBase = 'https://meridian.example/errors';

export function setErrorsBase(base: string): void {
  errorsBase = base.replace(/\/+$/, '');
}

interface ProblemKind {
  status: number;
  title: string;
  retryable: boolean;
}

/**
 * The one place where a refusal code becomes an HTTP status. Domain code returns
 * `{ok: false, code}`; routes turn the code into a problem here.
 */
export const PROBLEM_KINDS = {
  bad_request: { status: 400, title: 'Bad request', retryable: false },
  validation_failed: { status: 400, title: 'Invalid input', retryable: false },
  invalid_cursor: { status: 400, title: 'Invalid cursor', retryable: false },
  unauthorized: { status: 401, title: 'Unauthorized', retryable: false },
  payment_required: { status: 402, title: 'Payment required', retryable: false },
  insufficient_credit: { status: 402, title: 'Insufficient credit', retryable: false },
  forbidden: { status: 403, title: 'Forbidden', retryable: false },
  tier_forbidden: { status: 403, title: 'Plan does not include this metric', retryable: false },
  not_found: { status: 404, title: 'Not found', retryable: false },
  route_not_found: { status: 404, title: 'No such route', retryable: false },
  not_yet_available: { status: 404, title: 'Metric not yet available', retryable: false },
  method_not_allowed: { status: 405, title: 'Method not allowed', retryable: false },
  request_timeout: { status: 408, title: 'Request timeout', retryable: true },
  conflict: { status: 409, title: 'Conflict', retryable: false },
  gone: { status: 410, title: 'Gone', retryable: false },
  payload_too_large: { status: 413, title: 'Payload too large', retryable: false },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', retryable: false },
  header_fields_too_large: { status: 431, title: 'Request header fields too large', retryable: false },
  rate_limit: { status: 429, title: 'Too many requests', retryable: true },
  internal: { status: 500, title: 'Internal error', retryable: false },
  bad_gateway: { status: 502, title: 'Bad gateway', retryable: true },
  service_unavailable: { status: 503, title: 'Service unavailable', retryable: true },
  gateway_timeout: { status: 504, title: 'Gateway timeout', retryable: true },
} as const satisfies Record<string, ProblemKind>;

export type ProblemCode = keyof typeof PROBLEM_KINDS;

export interface ProblemInit {
  /** Overrides the category when it differs from the code (e.g. `email_unconfirmed` under 403). */
  category?: string;
  title?: string;
  retryAfter?: number;
  instance?: string;
  errors?: { path: string; message: string }[];
  status?: number;
}

/** Builds the problem body for a code; the status comes from PROBLEM_KINDS unless overridden. */
export function problem(code: ProblemCode, detail: string, init: ProblemInit = {}): Problem {
  const kind: ProblemKind = PROBLEM_KINDS[code];
  const category = init.category ?? code;
  const body: Problem = {
    type: `${errorsBase}/${category}`,
    title: init.title ?? kind.title,
    status: init.status ?? kind.status,
    detail,
    error_category: category,
    retryable: kind.retryable,
  };
  if (init.retryAfter !== undefined) body.retry_after = init.retryAfter;
  if (init.instance !== undefined) body.instance = init.instance;
  if (init.errors !== undefined) body.errors = init.errors;
  return body;
}

/** A reply on a request/reply subject: `{ok: true, data}` or `{ok: false, problem}`. */
export type RpcReply<T> = { ok: true; data: T } | { ok: false; problem: Problem };

/** Node's codes of a peer that cannot be reached or dropped the connection. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * PostgreSQL's SQLSTATEs of a server going away or not yet taking work: class 08 (connection
 * exception), admin / crash shutdown, starting up or recovering, too many connections.
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300)$/;
/** node-postgres's own messages for a connection that ended or never came (they carry no code). */
const UNREACHABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * Whether `err` (or its cause, or one of an AggregateError's errors) says that a server this process
 * depends on, its database above all, is unreachable for now: a restart or failover, which a retry
 * in a moment survives. Such a failure is answered 503 (retryable), not 500, which says our bug.
 */
export function isDependencyUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code)))
    return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDependencyUnavailable(e, depth + 1))) return true;
  return isDependencyUnavailable(cause, depth + 1);
}

/** The answer to a request that failed because a dependency is unreachable (isDependencyUnavailable). */
export function dependencyUnavailable(): Problem {
  return problem('service_unavailable', 'A server this service depends on is unreachable; retry shortly.', {
    retryAfter: 1,
  });
}
