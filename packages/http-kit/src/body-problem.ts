import { HttpProblem, httpProblem, problem } from './problem.js';

/**
 * What each body-parser failure tells the client. Every one is the client's doing except the two
 * `stream.*` types (a route read the body twice), which stay server errors.
 */
const BODY_PROBLEMS: Record<string, () => HttpProblem> = {
  'entity.too.large': () => httpProblem('payload_too_large', 'The request body is too large.'),
  'parameters.too.many': () =>
    httpProblem('payload_too_large', 'The form carries more fields than this route accepts.'),
  'entity.parse.failed': () =>
    httpProblem('bad_request', 'The request body cannot be read as its Content-Type says.'),
  'querystring.parse.rangeError': () =>
    httpProblem('bad_request', 'The form nests its fields deeper than this route accepts.'),
  'entity.verify.failed': () => httpProblem('bad_request', 'The request body was refused.'),
  'request.aborted': () => httpProblem('bad_request', 'The request body ended early.'),
  'request.size.invalid': () =>
    httpProblem('bad_request', 'The request body does not match its Content-Length.'),
  'encoding.unsupported': () =>
    httpProblem('unsupported_media_type', 'The request body encoding is not supported.'),
  'charset.unsupported': () =>
    httpProblem('unsupported_media_type', 'The request body charset is not supported.'),
};

/** A client error raised by express or a body parser (http-errors), answered by its own status. */
interface ClientHttpError {
  status: number;
  expose: true;
  type?: unknown;
}

function isClientHttpError(err: unknown): err is ClientHttpError {
  const e = err as Partial<ClientHttpError> | null | undefined;
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true;
}

/**
 * The problem a body-parser or express error answers, or undefined for an error the server did
 * not expect. Only the type and status are read: the error also carries the raw body, which holds
 * whatever the client sent (passwords, tokens) and is neither answered nor logged.
 */
export function requestErrorProblem(err: unknown): HttpProblem | undefined {
  // express's router cannot decode a path parameter such as `%FF`: it marks the URIError 400 but
  // not `expose`, so without this the client's malformed path would be answered as our 500.
  if (err instanceof URIError && (err as { status?: unknown }).status === 400)
    return httpProblem('bad_request', 'The request path holds a malformed percent-encoding.');
  const type = (err as { type?: unknown } | null | undefined)?.type;
  if (typeof type === 'string' && Object.hasOwn(BODY_PROBLEMS, type)) return BODY_PROBLEMS[type]!();
  if (!isClientHttpError(err)) return undefined;
  if (err.status === 413) return BODY_PROBLEMS['entity.too.large']!();
  if (err.status === 415)
    return httpProblem('unsupported_media_type', 'The request body type is not supported.');
  return new HttpProblem(problem('bad_request', 'The request is malformed.', { status: err.status }));
}
