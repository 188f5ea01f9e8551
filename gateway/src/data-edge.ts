import {
  Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import {
  INTERNAL_ASSERTION_HEADER,
  X402_HEADERS,
  type Caller,
  type KeyVerifyReply,
  type Plan,
  type Problem,
} from '@meridian/contracts';
import { answerTrace, problem } from '@meridian/http-kit';
import proxyaddr from 'proxy-addr';
import { formatTraceparent, type Logger, type Metrics } from '@meridian/observability';
import { ANONYMOUS, type AssertionSigner } from './assertion.js';
import type { VerifiedCache, Verification } from './auth/verified-cache.js';
import { corsHeaders, isPreflight, type CorsPolicy } from './domain/cors.js';
import { bearerChallenge, hasPaymentHeader, presentedKey } from './domain/credentials.js';
import { dataTarget, gateRefusal, isPriced, isSeriesRead, type DataTarget } from './domain/data-route.js';
import { PAYMENT_NOT_ENABLED, paymentRequired, type X402Settings } from './domain/payment-required.js';
import { rateLimitHeaders, type BucketPolicy, type RateDecision } from './domain/token-bucket.js';
import type { RateLimiter } from './rate-limit/limiter.js';

export interface DataEdgeOptions {
  /** The data service. */
  target: string;
  timeoutMs: number;
  keys: VerifiedCache<KeyVerifyReply>;
  limiter: RateLimiter;
  /** The bucket of each plan (data-api-interface 8, or RATE_LIMITS). */
  plans: Record<Plan, BucketPolicy>;
  signer: AssertionSigner;
  x402: X402Settings;
  /** Base of the resource URL in the x402 challenge; unset: the Host of the request. */
  publicBaseUrl?: string;
  cors: CorsPolicy;
  /** Peers whose X-Forwarded-For is believed (TRUST_PROXY), as on the express path. */
  trustProxy: string;
  /** Rejects a string that cannot be a key of ours before any request to identity. */
  keyFormatValid: (key: string) => boolean;
  logger: Logger;
  metrics: Metrics;
}

/** Hop-by-hop fields and credentials that never travel past the edge. */
const DROPPED_REQUEST_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'x-api-key',
  'cookie',
  INTERNAL_ASSERTION_HEADER,
];
const DROPPED_RESPONSE_HEADERS = ['connection', 'keep-alive', 'transfer-encoding'];

type Extra = Record<string, string>;

/**
 * The data calls' hot path, on node:http without express: key check from the local cache,
 * rate limit, plan gate, a cached signed assertion, and a keep-alive proxy to the data service.
 * Express and http-proxy-middleware cost about 340 µs of CPU per call; this path is the budget.
 */
export function dataEdge(options: DataEdgeOptions) {
  const upstream = new URL(options.target);
  const trusted = proxyaddr.compile(options.trustProxy.split(',').map((t) => t.trim()));
  const agent = new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 });
  const duration = options.metrics.httpDuration;

  /** A refused key: 401 with the bearer challenge (RFC 9110 requires one on every 401). */
  function refuseKey(res: ServerResponse, presented: boolean, extra: Extra): void {
    sendProblem(res, problem('unauthorized', 'The API key is not valid.'), {
      ...extra,
      'www-authenticate': bearerChallenge(presented),
    });
  }

  function sendProblem(res: ServerResponse, body: Problem, extra: Extra): void {
    const headers: OutgoingHttpHeaders = { ...extra, 'content-type': 'application/problem+json' };
    if (body.retry_after !== undefined) headers['retry-after'] = String(body.retry_after);
    res.writeHead(body.status, headers);
    res.end(JSON.stringify(body));
  }

  function challenge(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget & { hit: NonNullable<DataTarget['hit']> },
    query: string,
    extra: Extra,
  ): void {
    const base = options.publicBaseUrl ?? `http://${req.headers.host ?? `${upstream.host}`}`;
    const series = isSeriesRead(target, new URLSearchParams(query));
    const body = paymentRequired(
      target.hit,
      `${base}${req.url}`,
      series,
      options.x402,
      hasPaymentHeader(req.headers) ? PAYMENT_NOT_ENABLED : undefined,
    );
    const json = JSON.stringify(body);
    res.writeHead(402, {
      ...extra,
      'content-type': 'application/json',
      [X402_HEADERS.paymentRequired]: Buffer.from(json).toString('base64'),
    });
    res.end(json);
  }

  function forward(req: IncomingMessage, res: ServerResponse, token: string, extra: Extra): void {
    const headers: IncomingHttpHeaders = { ...req.headers };
    for (const name of DROPPED_REQUEST_HEADERS) delete headers[name];
    headers[INTERNAL_ASSERTION_HEADER] = token;
    headers['x-request-id'] = extra['x-request-id'];
    headers.traceparent = extra.traceparent;
    // One client address, replaced rather than appended to, as on the express path (proxy.ts).
    headers['x-forwarded-for'] = proxyaddr(req, trusted);
    const started = Date.now();
    const out = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });
    out.setTimeout(options.timeoutMs, () =>
      out.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    );
    out.on('response', (answer) => {
      const merged: OutgoingHttpHeaders = { ...answer.headers, ...extra };
      for (const name of DROPPED_RESPONSE_HEADERS) delete merged[name];
      res.writeHead(answer.statusCode ?? 502, merged);
      answer.pipe(res);
    });
    out.on('error', (err: NodeJS.ErrnoException) => {
      options.logger.warn({ service: 'data', code: err.code }, 'upstream failed');
      if (res.headersSent) return void res.destroy();
      const timedOut = Date.now() - started >= options.timeoutMs;
      sendProblem(
        res,
        timedOut
          ? problem('gateway_timeout', 'The data service did not answer in time.')
          : problem('service_unavailable', 'The data service is unavailable; try again shortly.', {
              retryAfter: 1,
            }),
        extra,
      );
    });
    if (req.method === 'GET' || req.method === 'HEAD') out.end();
    else req.pipe(out);
  }

  function withAssertion(req: IncomingMessage, res: ServerResponse, caller: Caller, extra: Extra): void {
    const token = options.signer.tokenFor(caller);
    if (typeof token === 'string') forward(req, res, token, extra);
    else
      token.then(
        (t) => forward(req, res, t, extra),
        (err) => fail(res, err, extra),
      );
  }

  function fail(res: ServerResponse, err: unknown, extra: Extra): void {
    options.logger.error({ err }, 'data edge failed');
    if (!res.headersSent)
      sendProblem(res, problem('internal', 'The server failed to answer this request.'), extra);
  }

  function admitted(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget | undefined,
    key: KeyVerifyReply,
    decision: RateDecision,
    extra: Extra,
  ): void {
    Object.assign(extra, rateLimitHeaders(decision));
    if (!decision.allowed) {
      const wait = decision.retryAfterS;
      return sendProblem(
        res,
        problem(
          'rate_limit',
          `This key's plan allows ${decision.limit} requests per minute; retry in ${wait} s.`,
          {
            retryAfter: wait,
          },
        ),
        extra,
      );
    }
    const refusal = gateRefusal(key.plan, target);
    if (refusal) return sendProblem(res, problem('tier_forbidden', refusal), extra);
    const caller: Caller = {
      account_id: key.account_id,
      plan: key.plan,
      auth: 'api_key',
      key_id: key.key_id,
      session_id: null,
    };
    withAssertion(req, res, caller, extra);
  }

  function verified(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget | undefined,
    result: Verification<KeyVerifyReply>,
    extra: Extra,
  ): void {
    if (!result.ok) {
      if (result.problem.status === 401) return refuseKey(res, true, extra);
      return sendProblem(res, result.problem, extra);
    }
    const key = result.value;
    const decision = options.limiter.take(key.key_id, options.plans[key.plan]);
    if (decision instanceof Promise) {
      decision.then(
        (d) => admitted(req, res, target, key, d, extra),
        (err) => fail(res, err, extra),
      );
    } else admitted(req, res, target, key, decision, extra);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const stop = duration.startTimer({ method: req.method ?? 'GET', route: 'data' });
    res.once('finish', () => stop({ status: String(res.statusCode) }));
    const trace = answerTrace(req, res);
    const extra: Extra = {
      'x-request-id': trace.requestId,
      traceparent: formatTraceparent(trace),
      'x-content-type-options': 'nosniff',
    };
    const preflight = isPreflight(req.method, req.headers);
    const cors = corsHeaders(options.cors, req.headers.origin, preflight);
    if (cors) Object.assign(extra, cors);
    if (preflight) {
      res.writeHead(204, extra);
      return void res.end();
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const target = dataTarget(path);
    const presented = presentedKey(req.headers);
    if (presented.kind === 'none') {
      if (isPriced(target)) return challenge(req, res, target, q < 0 ? '' : url.slice(q + 1), extra);
      return withAssertion(req, res, ANONYMOUS, extra);
    }
    if (presented.kind === 'malformed') return refuseKey(res, false, extra);
    if (!options.keyFormatValid(presented.key)) return refuseKey(res, true, extra);
    const result = options.keys.verify(presented.key, () => proxyaddr(req, trusted));
    if (result instanceof Promise) {
      result.then(
        (r) => verified(req, res, target, r, extra),
        (err) => fail(res, err, extra),
      );
    } else verified(req, res, target, result, extra);
  };
}
