import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { HttpProblem } from '@meridian/http-kit';
import { httpProblem, nodeHttp, sendProblem } from '@meridian/http-kit';
import type { Logger } from '@meridian/observability';
import { mayTryElsewhere, Replicas, unreachable } from '../domain/replicas.js';
import { routeOwner, type RouteOwner, type ServiceName } from '../domain/route-table.js';
import { callOf } from './front.js';

export interface ProxyOptions {
  /** Each service's replicas (one or more URLs), taken in turn. */
  targets: Record<ServiceName, readonly URL[]>;
  timeoutMs: number;
  /** How long a replica that refused a connection is passed over (domain/replicas.ts). */
  restMs: number;
  logger: Logger;
  table?: readonly RouteOwner[];
}

/** One service's replicas and a proxy (with its keep-alive agent) to each. */
interface ServiceReplicas {
  replicas: Replicas;
  proxies: RequestHandler[];
}

/**
 * Proxies each owned path to its service over keep-alive connections, to its replicas in turn. A
 * request that never reached a replica (or a read whose connection broke) goes to the next
 * replica; none left: 503 with retryable true at once. A slow service is a 504: never a hang.
 */
export function serviceProxy(options: ProxyOptions): RequestHandler {
  const services = new Map<ServiceName, ServiceReplicas>();
  for (const [service, urls] of Object.entries(options.targets) as [ServiceName, readonly URL[]][]) {
    const own: ServiceReplicas = { replicas: new Replicas(urls, options.restMs), proxies: [] };
    own.proxies = urls.map((url, index) =>
      proxyTo(service, url.href, options, (err, res) => failed(own, service, index, err, res)),
    );
    services.set(service, own);
  }
  /** Sends the request to the next replica it has not tried, if any. */
  const send = (own: ServiceReplicas, req: Request, res: Response, next: NextFunction): boolean => {
    const tried = res.locals.triedReplicas as Set<number>;
    const index = own.replicas.pick(tried, Date.now());
    if (index === undefined) return false;
    tried.add(index);
    res.locals.proxyStartedAt = Date.now();
    // A failure is answered by `failed` below; the proxy's own `next(err)` would answer it twice.
    void own.proxies[index]!(req, res, (err?: unknown) => (err === undefined ? next() : undefined));
    return true;
  };
  const failed = (
    own: ServiceReplicas,
    service: ServiceName,
    index: number,
    err: Error,
    res: ServerResponse | Socket,
  ): void => {
    const code = (err as NodeJS.ErrnoException).code;
    if (unreachable(code)) own.replicas.refused(index, Date.now());
    if ('setHeader' in res && !res.headersSent) {
      const response = res as unknown as Response;
      const req = response.req;
      if (mayTryElsewhere(code, req.method) && send(own, req, response, () => undefined)) {
        options.logger.warn({ service, code, replica: index }, 'upstream failed, trying another replica');
        return;
      }
    }
    upstreamFailed(service, err, res, options);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const owner = routeOwner(req.path, options.table);
    if (!owner) return next();
    // The edge answered the client's `Expect: 100-continue` itself and holds the body already;
    // passed on, it would also keep the proxy's own request hooks from running.
    delete req.headers.expect;
    res.locals.service = owner.service;
    res.locals.triedReplicas = new Set<number>();
    send(services.get(owner.service)!, req, res, next);
  };
}

/** Sign-in credentials only identity reads; every other service works from the signed assertion. */
const CREDENTIAL_HEADERS = ['cookie', 'authorization', 'x-api-key'];
/**
 * Who reads the caller's credentials: identity, and the MCP edge, which sends the API key back to
 * the data path with each tool call (so the plan gate and rate limit are the HTTP ones). Cookies
 * reach identity only.
 */
const KEEPS_CREDENTIALS: Partial<Record<ServiceName, readonly string[]>> = {
  identity: CREDENTIAL_HEADERS,
  mcp: ['authorization', 'x-api-key'],
};

function proxyTo(
  service: ServiceName,
  target: string,
  options: ProxyOptions,
  onError: (err: Error, res: ServerResponse | Socket) => void,
): RequestHandler {
  const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    agent,
    xfwd: false,
    proxyTimeout: options.timeoutMs,
    logger: undefined,
    on: {
      proxyReq: (proxyReq, req, res) => {
        forwardedFor(proxyReq, req as Request, res as unknown as Response, service);
        sendBody(proxyReq, (res as unknown as Response).locals.body as Buffer | undefined);
      },
      error: (err, _req, res) => onError(err, res),
    },
  }) as unknown as RequestHandler;
}

/**
 * One client address per request, the one the front worked out (edge/call.ts, as on the data
 * path): a client's own X-Forwarded-For is replaced, never appended to, so it cannot pose as
 * another address to the services' per-address limits.
 */
function forwardedFor(proxyReq: ClientRequest, req: Request, res: Response, service: ServiceName): void {
  proxyReq.setHeader('x-forwarded-for', callOf(res)?.client ?? req.ip ?? req.socket.remoteAddress ?? '');
  proxyReq.setHeader('x-forwarded-proto', req.protocol);
  proxyReq.setHeader('x-forwarded-host', req.host ?? '');
  const kept = KEEPS_CREDENTIALS[service] ?? [];
  for (const name of CREDENTIAL_HEADERS) if (!kept.includes(name)) proxyReq.removeHeader(name);
}

/**
 * The body the edge read (edge/bodies.ts), sent whole with its length; the request itself is
 * consumed already, so piping it only ends the upstream request.
 */
function sendBody(proxyReq: ClientRequest, body: Buffer | undefined): void {
  proxyReq.removeHeader('expect');
  if (body === undefined) return;
  proxyReq.removeHeader('transfer-encoding');
  proxyReq.setHeader('content-length', body.length);
  proxyReq.write(body);
}

function upstreamFailed(
  service: ServiceName,
  err: Error,
  res: ServerResponse | Socket,
  options: ProxyOptions,
): void {
  const code = (err as NodeJS.ErrnoException).code;
  options.logger.warn({ service, code }, 'upstream failed');
  if (!('setHeader' in res) || res.headersSent) {
    res.destroy();
    return;
  }
  // The proxy destroys a request that outlived proxyTimeout, which surfaces as a plain reset.
  const startedAt = (res as unknown as Response).locals?.proxyStartedAt as number | undefined;
  const timedOut = startedAt !== undefined && Date.now() - startedAt >= options.timeoutMs;
  const problem: HttpProblem = timedOut
    ? httpProblem('gateway_timeout', `The ${service} service did not answer in time.`)
    : httpProblem('service_unavailable', `The ${service} service is unavailable; try again shortly.`, {
        retryAfter: 1,
      });
  sendProblem(res as unknown as Response, problem);
}
