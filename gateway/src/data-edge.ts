import { Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  INTERNAL_ASSERTION_HEADER,
  X402_HEADERS,
  type Caller,
  type KeyVerifyReply,
  type Plan,
  type Problem,
} from '@meridian/contracts';
import { problem, requestTrace } from '@meridian/http-kit';
import proxyaddr from 'proxy-addr';
import { formatTraceparent, type Logger, type Metrics } from '@meridian/observability';
import { ANONYMOUS, type AssertionSigner } from './assertion.js';
import type { VerifiedCache, Verification } from './auth/verified-cache.js';
import { corsHeaders, isPreflight, type CorsPolicy } from './domain/cors.js';
import { bearerChallenge, hasPaymentHeader, presentedKey } from './domain/credentials.js';
import { dataTargets, gateRefusal, isPriced, isSeriesRead, type DataTarget } from './domain/data-route.js';
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

/**
 * Hop-by-hop fields and credentials that never travel past the edge, and the fields the edge
 * sets itself rather than passing on.
 */
const NOT_FORWARDED = new Set([
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
  'x-request-id',
  'traceparent',
  'x-forwarded-for',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * The edge's own answer fields as node's flat [name, value, ...] list, names in lower case:
 * writeHead takes it as it is, where an object costs a copy and a setHeader per field. Starts
 * with the request id and the traceparent (edgeFields), which the upstream request repeats.
 */
type Fields = string[];
const REQUEST_ID_AT = 1;
const TRACEPARENT_AT = 3;

function edgeFields(requestId: string, traceparent: string): Fields {
  return ['x-request-id', requestId, 'traceparent', traceparent, 'x-content-type-options', 'nosniff'];
}

function addFields(fields: Fields, more: Record<string, string>): void {
  for (const name in more) fields.push(name, more[name]!);
}

function hasField(fields: Fields, name: string): boolean {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return true;
  return false;
}

/**
 * The upstream's answer fields as received, less the hop-by-hop ones and those the edge sets
 * (which win), then the edge's.
 */
function answerFields(raw: string[], edge: Fields): Fields {
  const fields: Fields = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!DROPPED_RESPONSE_HEADERS.has(name) && !hasField(edge, name)) fields.push(name, raw[i + 1]!);
  }
  for (let i = 0; i < edge.length; i++) fields.push(edge[i]!);
  return fields;
}

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
  const dataTarget = dataTargets();

  /** A refused key: 401 with the bearer challenge (RFC 9110 requires one on every 401). */
  function refuseKey(res: ServerResponse, presented: boolean, fields: Fields): void {
    fields.push('www-authenticate', bearerChallenge(presented));
    sendProblem(res, problem('unauthorized', 'The API key is not valid.'), fields);
  }

  function sendProblem(res: ServerResponse, body: Problem, fields: Fields): void {
    fields.push('content-type', 'application/problem+json');
    // A refused rate limit has it among its rate-limit fields already.
    if (body.retry_after !== undefined && !hasField(fields, 'retry-after'))
      fields.push('retry-after', String(body.retry_after));
    res.writeHead(body.status, fields);
    res.end(JSON.stringify(body));
  }

  function challenge(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget & { hit: NonNullable<DataTarget['hit']> },
    query: string,
    fields: Fields,
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
    fields.push(
      'content-type',
      'application/json',
      X402_HEADERS.paymentRequired,
      Buffer.from(json).toString('base64'),
    );
    res.writeHead(402, fields);
    res.end(json);
  }

  /** The request's fields for the data service, as a flat list like the answer's. */
  function upstreamFields(req: IncomingMessage, token: string, fields: Fields): string[] {
    const incoming = req.headers;
    const headers: string[] = [];
    for (const name in incoming) {
      if (NOT_FORWARDED.has(name)) continue;
      const value = incoming[name]!;
      if (typeof value === 'string') headers.push(name, value);
      else for (const v of value) headers.push(name, v);
    }
    // node adds Host only to an object of fields; an HTTP/1.0 client may have sent none.
    if (incoming.host === undefined) headers.push('host', upstream.host);
    headers.push(
      INTERNAL_ASSERTION_HEADER,
      token,
      'x-request-id',
      fields[REQUEST_ID_AT]!,
      'traceparent',
      fields[TRACEPARENT_AT]!,
      // One client address, replaced rather than appended to, as on the express path (proxy.ts).
      'x-forwarded-for',
      proxyaddr(req, trusted),
    );
    return headers;
  }

  function forward(req: IncomingMessage, res: ServerResponse, token: string, fields: Fields): void {
    const headers = upstreamFields(req, token, fields);
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
      res.writeHead(answer.statusCode ?? 502, answerFields(answer.rawHeaders, fields));
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
        fields,
      );
    });
    if (req.method === 'GET' || req.method === 'HEAD') out.end();
    else req.pipe(out);
  }

  function withAssertion(req: IncomingMessage, res: ServerResponse, caller: Caller, fields: Fields): void {
    const token = options.signer.tokenFor(caller);
    if (typeof token === 'string') forward(req, res, token, fields);
    else
      token.then(
        (t) => forward(req, res, t, fields),
        (err) => fail(res, err, fields),
      );
  }

  function fail(res: ServerResponse, err: unknown, fields: Fields): void {
    options.logger.error({ err }, 'data edge failed');
    if (!res.headersSent)
      sendProblem(res, problem('internal', 'The server failed to answer this request.'), fields);
  }

  function admitted(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget | undefined,
    key: KeyVerifyReply,
    decision: RateDecision,
    fields: Fields,
  ): void {
    addFields(fields, rateLimitHeaders(decision));
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
        fields,
      );
    }
    const refusal = gateRefusal(key.plan, target);
    if (refusal) return sendProblem(res, problem('tier_forbidden', refusal), fields);
    const caller: Caller = {
      account_id: key.account_id,
      plan: key.plan,
      auth: 'api_key',
      key_id: key.key_id,
      session_id: null,
    };
    withAssertion(req, res, caller, fields);
  }

  function verified(
    req: IncomingMessage,
    res: ServerResponse,
    target: DataTarget | undefined,
    result: Verification<KeyVerifyReply>,
    fields: Fields,
  ): void {
    if (!result.ok) {
      if (result.problem.status === 401) return refuseKey(res, true, fields);
      return sendProblem(res, result.problem, fields);
    }
    const key = result.value;
    const decision = options.limiter.take(key.key_id, options.plans[key.plan]);
    if (decision instanceof Promise) {
      decision.then(
        (d) => admitted(req, res, target, key, d, fields),
        (err) => fail(res, err, fields),
      );
    } else admitted(req, res, target, key, decision, fields);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const stop = duration.startTimer({ method: req.method ?? 'GET', route: 'data' });
    res.once('finish', () => stop({ status: String(res.statusCode) }));
    const trace = requestTrace(req);
    const fields = edgeFields(trace.requestId, formatTraceparent(trace));
    const preflight = isPreflight(req.method, req.headers);
    const cors = corsHeaders(options.cors, req.headers.origin, preflight);
    if (cors) addFields(fields, cors);
    if (preflight) {
      res.writeHead(204, fields);
      return void res.end();
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const target = dataTarget(path);
    const presented = presentedKey(req.headers);
    if (presented.kind === 'none') {
      if (isPriced(target)) return challenge(req, res, target, q < 0 ? '' : url.slice(q + 1), fields);
      return withAssertion(req, res, ANONYMOUS, fields);
    }
    if (presented.kind === 'malformed') return refuseKey(res, false, fields);
    if (!options.keyFormatValid(presented.key)) return refuseKey(res, true, fields);
    const result = options.keys.verify(presented.key, () => proxyaddr(req, trusted));
    if (result instanceof Promise) {
      result.then(
        (r) => verified(req, res, target, r, fields),
        (err) => fail(res, err, fields),
      );
    } else verified(req, res, target, result, fields);
  };
}
