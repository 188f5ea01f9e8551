import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import {
  dependencyUnavailable,
  INTERNAL_ASSERTION_HEADER,
  isDependencyUnavailable,
  type Caller,
} from '@meridian/contracts';
import { runWithTrace, type Logger, type Metrics } from '@meridian/observability';
import { callerVerifier, notFromGateway } from './internal-auth.js';
import { HttpProblem, problem, writeProblem } from './problem.js';
import { SECURITY_HEADERS, setSecurityHeaders } from './security-headers.js';
import { answerTrace } from './trace-headers.js';

/** A GET route answered without express: the hot read paths of a service. */
export interface LeanRoute {
  /** Route label for metrics, e.g. `/v1/data/:category/:product/:metric`. */
  label: string;
  /** The path parameters when the path is this route's, else undefined. */
  match(pathname: string): Record<string, string> | undefined;
  /** The JSON answer (status 200), or a JsonText; refusals are thrown as HttpProblem. */
  handle(params: Record<string, string>, query: ParsedUrlQuery, caller: Caller): Promise<unknown>;
}

/**
 * A lean route's answer already serialised, with fields of its own (a kept answer: the data
 * service's cache writes it once and patches its aged fields).
 */
export class JsonText {
  /**
   * `body`: the JSON, or its bytes in pieces (kept buffers around a few patched strings), written
   * corked in one writev with no copy into one buffer.
   */
  constructor(
    readonly body: string | readonly (Uint8Array | string)[],
    readonly fields: readonly (readonly [string, string])[] = [],
  ) {}
}

export interface LeanOptions {
  routes: readonly LeanRoute[];
  assertionKey: Uint8Array;
  logger: Logger;
  metrics: Metrics;
}

const JSON_HEADERS = new Map<string, string | number | readonly string[]>([
  ...SECURITY_HEADERS,
  ['content-type', 'application/json; charset=utf-8'],
]);

/**
 * Serves the lean GET routes on node:http and hands every other request to `fallback` (the
 * express app). Same contract as the express side: caller assertion required, request id and
 * traceparent, security headers, problem+json refusals, request-duration metric; a few dozen
 * microseconds cheaper per call, which is most of a cached read's cost.
 */
export function withLeanRoutes(fallback: RequestListener, options: LeanOptions): RequestListener {
  const verify = callerVerifier(options.assertionKey);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return fallback(req, res);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    for (const route of options.routes) {
      const params = route.match(pathname);
      if (params) {
        void serve(route, params, q === -1 ? '' : url.slice(q + 1), req, res, verify, options);
        return;
      }
    }
    fallback(req, res);
  };
}

async function serve(
  route: LeanRoute,
  params: Record<string, string>,
  search: string,
  req: IncomingMessage,
  res: ServerResponse,
  verify: (token: string | undefined) => Promise<Caller | undefined>,
  options: LeanOptions,
): Promise<void> {
  const stop = options.metrics.httpDuration.startTimer();
  await runWithTrace(answerTrace(req, res), async () => {
    try {
      const caller = await verify(req.headers[INTERNAL_ASSERTION_HEADER] as string | undefined);
      if (!caller) throw notFromGateway();
      writeJson(req, res, await route.handle(params, parseQuery(search), caller));
    } catch (err) {
      sendLeanProblem(req, res, err, options.logger);
    }
  });
  stop({ method: req.method ?? 'GET', route: route.label, status: String(res.statusCode) });
}

function writeJson(req: IncomingMessage, res: ServerResponse, answer: unknown): void {
  const body = answer instanceof JsonText ? answer.body : JSON.stringify(answer);
  res.setHeaders(JSON_HEADERS);
  if (answer instanceof JsonText) for (const [name, value] of answer.fields) res.setHeader(name, value);
  if (typeof body === 'string') {
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const length = body.reduce((n, c) => n + (typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength), 0);
  res.setHeader('content-length', length);
  if (req.method === 'HEAD') return void res.end();
  res.cork();
  for (const chunk of body) res.write(chunk);
  res.end();
}

function sendLeanProblem(req: IncomingMessage, res: ServerResponse, err: unknown, logger: Logger): void {
  setSecurityHeaders(res);
  if (err instanceof HttpProblem) return writeProblem(res, err.body, err.headers);
  if (isDependencyUnavailable(err)) {
    logger.warn({ err, method: req.method, path: req.url?.split('?')[0] }, 'a dependency is unavailable');
    return writeProblem(res, dependencyUnavailable());
  }
  logger.error({ err, method: req.method, path: req.url?.split('?')[0] }, 'unhandled error');
  writeProblem(res, problem('internal', 'The server failed to answer this request.'));
}

/** The methods lean routes serve at a path (GET and HEAD, or none), for express's 405 (finishApp). */
export function leanMethods(routes: readonly LeanRoute[]): (path: string) => string[] {
  return (path) => (routes.some((r) => r.match(path) !== undefined) ? ['GET', 'HEAD'] : []);
}
