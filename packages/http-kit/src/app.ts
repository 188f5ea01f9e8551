import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { runWithTrace, type Logger, type Metrics } from '@meridian/observability';
import { dependencyUnavailable, isDependencyUnavailable } from '@meridian/contracts';
import { requestErrorProblem } from './body-problem.js';
import { HttpProblem, httpProblem, problem, writeProblem } from './problem.js';
import { setSecurityHeaders } from './security-headers.js';
import { answerTrace } from './trace-headers.js';

export interface HttpAppOptions {
  logger: Logger;
  metrics: Metrics;
  /** Largest JSON body accepted; larger bodies get a 413 problem. */
  jsonLimit?: string;
  /** False for the gateway, which streams bodies through to the services unread. */
  parseJson?: boolean;
  /**
   * Peers whose X-Forwarded-For is believed when working out the client address (express
   * `trust proxy` syntax). Default: loopback and the private ranges, where the gateway and a
   * load balancer in front of it live; a service is never reachable from anywhere else.
   */
  trustProxy?: string;
  /**
   * Paths whose routes also read an HTML form (`application/x-www-form-urlencoded`, with their own
   * parser). Every other body must be JSON: anything else is a 415 problem, never read as empty.
   */
  formPaths?: readonly string[];
}

export const DEFAULT_TRUST_PROXY = 'loopback, uniquelocal';

/**
 * An express app with what every service needs before its own routes: request id and trace
 * context, security headers, a bounded JSON body parser and request metrics. Call
 * `finishApp(app)` after the routes to add the routing 404 and the last error handler.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? DEFAULT_TRUST_PROXY);
  app.use(traceMiddleware);
  app.use(metricsMiddleware(options.metrics));
  app.use((_req: Request, res: Response, next: NextFunction) => {
    setSecurityHeaders(res);
    next();
  });
  if (options.parseJson !== false) {
    app.use(jsonBodiesOnly(options.formPaths ?? []));
    app.use(express.json({ limit: options.jsonLimit ?? '100kb', type: JSON_TYPES }));
  }
  app.locals.logger = options.logger;
  return app;
}

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A body the JSON parser would leave unread (a form, text, no Content-Type) is refused with 415
 * rather than read as an empty object and answered as if its fields were missing.
 */
function jsonBodiesOnly(formPaths: readonly string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!hasBody(req) || req.is(JSON_TYPES)) return next();
    if (req.is(FORM_TYPE) && formPaths.includes(req.path)) return next();
    const forms = formPaths.includes(req.path) ? ` or an HTML form (${FORM_TYPE})` : '';
    next(
      httpProblem(
        'unsupported_media_type',
        `This route reads JSON: send the body as JSON with Content-Type: application/json${forms}.`,
      ),
    );
  };
}

function traceMiddleware(req: Request, res: Response, next: NextFunction): void {
  runWithTrace(answerTrace(req, res), next);
}

function metricsMiddleware(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // The matched route pattern keeps label cardinality bounded; unmatched paths share one label.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

/** Writes a problem+json answer. */
export function sendProblem(res: Response, err: HttpProblem): void {
  writeProblem(res, err.body, err.headers);
}

/** A layer of express's router, as far as the methods of a path are read from it. */
interface RouterLayer {
  match(path: string): { path: string } | false;
  route?: { methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

/** The methods the routes of `stack` serve at `path`, nested routers included. */
function methodsAt(stack: readonly RouterLayer[], path: string, found = new Set<string>()): Set<string> {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all') found.add(method.toUpperCase());
    } else if (layer.handle?.stack)
      methodsAt(layer.handle.stack, path.slice(matched.path.length) || '/', found);
  }
  if (found.has('GET')) found.add('HEAD');
  return found;
}

/** The 405 of a path some route serves with other methods, with `Allow` (RFC 9110 15.5.6). */
export function methodNotAllowed(method: string, path: string, allowed: Iterable<string>): HttpProblem {
  const allow = [...allowed].sort().join(', ');
  const refusal = httpProblem('method_not_allowed', `${path} answers ${allow}, not ${method}.`);
  return new HttpProblem(refusal.body, { ...refusal.headers, allow });
}

/**
 * Adds the routing 404 (405 with `Allow` when the path is served with other methods, by a route
 * of the app or, as `servedElsewhere` says, by the lean routes in front of it) and the last error
 * handler; call after every route.
 */
export function finishApp(app: Express, servedElsewhere?: (path: string) => readonly string[]): Express {
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const stack = (app as unknown as { router: { stack: RouterLayer[] } }).router.stack;
    const allowed = methodsAt(stack, req.path);
    for (const method of servedElsewhere?.(req.path) ?? []) allowed.add(method);
    if (allowed.size > 0 && !allowed.has(req.method))
      return next(methodNotAllowed(req.method, req.path, allowed));
    next(httpProblem('route_not_found', `No route serves ${req.method} ${req.path}`));
  });
  app.use(lastErrorHandler);
  return app;
}

function lastErrorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const known = err instanceof HttpProblem ? err : requestErrorProblem(err);
  if (known) return sendProblem(res, known);
  const logger = req.app.locals.logger as Logger | undefined;
  // The database (or another server) restarting or failing over: retryable, not our bug.
  if (isDependencyUnavailable(err)) {
    logger?.warn({ err, method: req.method, path: req.path }, 'a dependency is unavailable');
    return sendProblem(res, new HttpProblem(dependencyUnavailable()));
  }
  logger?.error({ err, method: req.method, path: req.path }, 'unhandled error');
  // Nothing about the failure reaches the client: no message, no stack, no SQL.
  sendProblem(res, new HttpProblem(problem('internal', 'The server failed to answer this request.')));
}
