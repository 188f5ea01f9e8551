import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CLIENT_ADDRESS_HEADER,
  INTERNAL_ASSERTION_HEADER,
  SESSION_COOKIE,
  X402_HEADERS,
  type Caller,
  type KeyVerifyReply,
  type PaymentCallRequest,
  type Plan,
  type Problem,
  type SessionVerifyReply,
  type Catalog,
} from '@meridian/contracts';
import {
  cookieValue,
  methodNotAllowed,
  problem,
  requestTrace,
  verifyClientAddress,
  writeProblem,
} from '@meridian/http-kit';
import proxyaddr from 'proxy-addr';
import { formatTraceparent, type Logger, type Metrics } from '@meridian/observability';
import type { RateLimiter, WithinDecision } from '../adapters/rate-limiter.js';
import type { X402Client } from '../adapters/x402.js';
import type { VerifiedCache, Verification } from '../adapters/verified-cache.js';
import { trustedProxies } from '../domain/client-address.js';
import { corsHeaders, isPreflight, type CorsPolicy } from '../domain/cors.js';
import { bearerChallenge, presentedKey } from '../domain/credentials.js';
import {
  challengedUrl,
  dataTargets,
  gateRefusal,
  isPriced,
  isSeriesRead,
  type DataTarget,
} from '../domain/data-route.js';
import {
  NO_PAYMENT,
  paymentHeaderOf,
  paymentRequired,
  type X402Settings,
} from '../domain/payment-required.js';
import { PaidCalls, type PaidCall } from './paid-calls.js';
import {
  rateLimitHeaders,
  accountBucket,
  retiredKeysBucket,
  type BucketPolicy,
  type RateDecision,
} from '../domain/token-bucket.js';
import { ANONYMOUS, type AssertionSigner } from './assertion.js';
import { checkDataQuery } from './query-check.js';
import { CLOSE_FIELDS, closesUnread, readBody, type BodyLimits } from './bodies.js';
import type { InFlightGate } from './in-flight.js';
import { mayTryElsewhere, unreachable, type Replicas } from '../domain/replicas.js';
import { isTimeout, UpstreamPool, type AnswerSink, type Forwarding } from './upstream.js';

export interface DataEdgeOptions {
  /** The catalogue of the data service's mode: what the pre-challenge checks accept. */
  catalog: Catalog;
  /** The data service's replicas (DATA_URL), taken in turn. */
  replicas: Replicas;
  timeoutMs: number;
  keys: VerifiedCache<KeyVerifyReply>;
  /** A signed-in person's session reads data at its account's plan, as a key does (no x402). */
  sessions: VerifiedCache<SessionVerifyReply>;
  limiter: RateLimiter;
  /** The bucket of each plan (data-api-interface 8, or RATE_LIMITS). */
  plans: Record<Plan, BucketPolicy>;
  /** The account-wide bucket of each plan (ACCOUNT_RATE_MULTIPLE times the key's). */
  accountPlans: Record<Plan, BucketPolicy>;
  signer: AssertionSigner;
  x402: X402Settings;
  /** The x402 service: the challenge's fee payer, verification and settlement of paid calls. */
  payments: X402Client;
  /** Base of the resource URL in the x402 challenge; unset: the Host of the request. */
  publicBaseUrl?: string;
  cors: CorsPolicy;
  /** Peers whose X-Forwarded-For is believed (TRUST_PROXY), as on the express path. */
  trustProxy: string;
  /**
   * The internal secret's key: an edge of ours (the MCP server) names its client's address in
   * CLIENT_ADDRESS_HEADER signed with it; an assertion that does not verify is ignored.
   */
  clientAddressKey: Uint8Array;
  /** Rejects a string that cannot be a key of ours before any request to identity. */
  keyFormatValid: (key: string) => boolean;
  /** Requests in flight per client address, shared with the express path. */
  inFlight: InFlightGate;
  bodies: BodyLimits;
  logger: Logger;
  metrics: Metrics;
}

/**
 * Hop-by-hop fields and credentials that never travel past the edge, and the fields the edge
 * sets itself rather than passing on.
 */
const NOT_FORWARDED = new Set([
  'content-length',
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
  CLIENT_ADDRESS_HEADER,
  'x-request-id',
  'traceparent',
  'x-forwarded-for',
  'expect',
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

/** Bodies up to this size leave in the same write as the fields (endWith); larger ones beside them. */
const ONE_WRITE_BYTES = 64 * 1024;

/**
 * The fields and a whole body. node joins a latin1 string body to the fields into one string and
 * one write(2), where a Buffer goes out by writev beside them through a corked stream, which
 * cost a few µs more per answer; latin1 maps each byte to one character and back, so the bytes
 * sent are the data service's, whatever their encoding.
 */
function endWith(res: ServerResponse, status: number, fields: Fields, body: Buffer | undefined): void {
  res.writeHead(status, fields);
  if (body === undefined) res.end();
  else if (body.length <= ONE_WRITE_BYTES) res.end(body.toString('latin1'), 'latin1');
  else res.end(body);
}

/** One data call on its way through the edge. */
interface DataCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The answer's fields so far. */
  fields: Fields;
  path: string;
  /** The client address TRUST_PROXY yields. */
  client: string;
  /** The query string, without its `?`. */
  query: string;
  target: DataTarget | undefined;
  /** A paid call (x402) whose payment was verified: its answer is held until it is settled. */
  paid?: PaidCall;
  /** The request to the data service, once sent: cancelled if the client leaves first. */
  forwarding?: Forwarding;
  /** Gives back the call's place in flight (InFlightGate). */
  leave?: () => void;
}

type PricedTarget = DataTarget & { hit: NonNullable<DataTarget['hit']> };

/**
 * The data calls' hot path, on node:http without express: key check from the local cache,
 * rate limit, plan gate, a cached signed assertion, and a keep-alive proxy to the data service.
 * Express and http-proxy-middleware cost about 340 µs of CPU per call; this path is the budget.
 * Each step below hands the call to the next, synchronously while the answer is in memory.
 */
class DataEdge {
  /** undefined when no proxy is trusted (TRUST_PROXY `none`): the peer is the client. */
  private readonly trusted: ReturnType<typeof proxyaddr.compile> | undefined;
  /** A keep-alive pool per replica of the data service, in the order of DATA_URL. */
  private readonly pools: UpstreamPool[];
  private readonly dataTarget: ReturnType<typeof dataTargets>;
  private readonly paidCalls: PaidCalls;

  constructor(private readonly options: DataEdgeOptions) {
    this.pools = options.replicas.urls.map((url) => new UpstreamPool(url.origin, options.timeoutMs));
    this.dataTarget = dataTargets(options.catalog);
    const proxies = trustedProxies(options.trustProxy);
    this.trusted = proxies.length === 0 ? undefined : proxyaddr.compile(proxies);
    this.paidCalls = new PaidCalls(options.payments, options.metrics, {
      challenge: (call, error, receipt) => this.challenge(call, call.target as PricedTarget, error, receipt),
      serve: (call) => this.sign(call, X402_CALLER),
      write: (call, status, rawHeaders, body) =>
        endWith(call.res, status, answerFields(rawHeaders, call.fields), body),
      upstreamFailed: (call, err) => this.upstreamFailed(call, err),
      refuse: (call, body) => this.refuse(call, body),
      fail: (call, err) => this.fail(call, err),
    });
  }

  /**
   * Entry: trace and CORS fields, the preflight, then the way in the call's credential picks.
   * One `close` listener per call ends its timer (an answer sent in full), gives back its place
   * in flight and cancels its upstream request if the client left first.
   */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const call = this.open(req, res);
    res.on('close', () => {
      if (res.writableFinished) this.observe(req.method ?? 'GET', res.statusCode, started);
      call.leave?.();
      call.forwarding?.cancel();
    });
    if (isPreflight(req.method, req.headers)) {
      res.writeHead(204, call.fields);
      return void res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && call.target) return this.wrongMethod(call);
    const place = this.options.inFlight.enter(call.client);
    if ('refused' in place) {
      call.fields.push(...CLOSE_FIELDS);
      return this.refuse(call, place.refused);
    }
    call.leave = place.leave;
    this.admit(call);
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.close()));
  }

  /** The request-duration histogram's series of each status of GETs, made once (no timer closures). */
  private readonly getDurations = new Map<number, (seconds: number) => void>();

  private observe(method: string, status: number, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    const histogram = this.options.metrics.httpDuration;
    if (method !== 'GET')
      return histogram.observe({ method, route: 'data', status: String(status) }, seconds);
    let series = this.getDurations.get(status);
    if (series === undefined) {
      const child = histogram.labels({ method, route: 'data', status: String(status) });
      series = (v) => child.observe(v);
      this.getDurations.set(status, series);
    }
    series(seconds);
  }

  private open(req: IncomingMessage, res: ServerResponse): DataCall {
    const trace = requestTrace(req);
    const fields = edgeFields(trace.requestId, formatTraceparent(trace));
    const cors = corsHeaders(this.options.cors, req.headers.origin, isPreflight(req.method, req.headers));
    if (cors) addFields(fields, cors);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    return {
      req,
      res,
      fields,
      path,
      client: this.clientOf(req),
      query: q < 0 ? '' : url.slice(q + 1),
      target: this.dataTarget(path),
    };
  }

  /**
   * The address this call's budgets are kept under: the one an edge of ours vouches for with a
   * valid signed assertion (the MCP server's caller), else the one TRUST_PROXY yields.
   */
  private clientOf(req: IncomingMessage): string {
    const asserted = req.headers[CLIENT_ADDRESS_HEADER];
    const vouched = asserted && verifyClientAddress(asserted, this.options.clientAddressKey);
    if (vouched) return vouched;
    return this.trusted ? proxyaddr(req, this.trusted) : (req.socket.remoteAddress ?? '');
  }

  /** No key: the x402 challenge on a priced route, else the data service answers anonymously. */
  private admit(call: DataCall): void {
    const presented = presentedKey(call.req.headers);
    if (presented.kind === 'none') {
      const session = cookieValue(call.req.headers.cookie, SESSION_COOKIE);
      if (session) return this.withSession(call, session);
      return this.keyless(call);
    }
    if (presented.kind === 'malformed') return this.refuseKey(call, false);
    if (!this.options.keyFormatValid(presented.key)) return this.refuseKey(call, true);
    const result = this.options.keys.verify(presented.key, () => call.client);
    if (result instanceof Promise)
      result.then(
        (r) => this.verified(call, r),
        (err) => this.fail(call, err),
      );
    else this.verified(call, result);
  }

  /**
   * A signed-in session: identity vouches for it, then the account's plan gates and limits it as a
   * key would (its bucket is the account's session bucket). A session identity refuses (expired,
   * revoked) counts as no credential: the caller may still pay per call.
   */
  private withSession(call: DataCall, token: string): void {
    const settle = (result: Verification<SessionVerifyReply>) => {
      if (!result.ok)
        return result.problem.status === 401 ? this.keyless(call) : this.refuse(call, result.problem);
      const session = result.value;
      const go = (d: RateDecision) =>
        this.admitted(call, session.plan, d, {
          account_id: session.account_id,
          plan: session.plan,
          auth: 'session',
          key_id: null,
          session_id: session.session_id,
        });
      this.withinAccount(call, `session:${session.account_id}`, session.account_id, session.plan, go);
    };
    const result = this.options.sessions.verify(token, () => call.client);
    if (result instanceof Promise) result.then(settle, (err) => this.fail(call, err));
    else settle(result);
  }

  /** No credential: the x402 challenge (or a paid call) on a priced route, else anonymous. */
  private keyless(call: DataCall): void {
    if (!isPriced(call.target)) return this.sign(call, ANONYMOUS);
    // A query the data service would refuse is refused before any payment is asked for or taken.
    const refused = checkDataQuery(call.target.hit, new URLSearchParams(call.query));
    if (refused) return this.refuse(call, refused);
    const payment = paymentHeaderOf(call.req.headers);
    if (payment === undefined) return this.challenge(call, call.target);
    return this.withTerms(call, (terms) =>
      this.paidCalls.verify(call, this.paymentRequest(call, call.target as PricedTarget, terms, payment)),
    );
  }

  /** The challenge's terms: our settings and the facilitator's fee payer (503 when it cannot be known). */
  private withTerms(call: DataCall, then: (terms: X402Settings & { feePayer: string }) => void): void {
    const feePayer = this.options.payments.feePayer();
    const go = (fp: string | Problem) =>
      typeof fp === 'string' ? then({ ...this.options.x402, feePayer: fp }) : this.refuse(call, fp);
    if (typeof feePayer === 'string') return go(feePayer);
    feePayer.then(go, (err) => this.fail(call, err));
  }

  /**
   * The resource URL a payment buys (the public base, the path and the data endpoint's own
   * parameters only) and the series flag of its price.
   */
  private resourceOf(call: DataCall, target: PricedTarget) {
    const base =
      this.options.publicBaseUrl ??
      `http://${call.req.headers.host ?? `${this.options.replicas.urls[0]!.host}`}`;
    const query = new URLSearchParams(call.query);
    return { url: challengedUrl(base, call.path, query), series: isSeriesRead(target, query) };
  }

  private paymentRequest(
    call: DataCall,
    target: PricedTarget,
    terms: X402Settings & { feePayer: string },
    header: string,
  ): PaymentCallRequest {
    const { url, series } = this.resourceOf(call, target);
    const required = paymentRequired(target.hit, url, series, terms);
    return { header, resource: required.resource.url, requirements: required.accepts[0]! };
  }

  /**
   * The 402 of data-api-interface 4.4, in the PAYMENT-REQUIRED field and as the body, never
   * cached; with `error` naming why a payment sent was refused, and the settlement receipt of one
   * that did not settle.
   */
  private challenge(call: DataCall, target: PricedTarget, error = NO_PAYMENT, receipt?: string): void {
    this.withTerms(call, (terms) => {
      const { res, fields } = call;
      const { url, series } = this.resourceOf(call, target);
      const json = JSON.stringify(paymentRequired(target.hit, url, series, terms, error));
      this.paidCalls.challenged(error === NO_PAYMENT ? 'no_payment' : error.slice(0, error.indexOf(':')));
      fields.push(
        'content-type',
        'application/json',
        'cache-control',
        'no-store',
        X402_HEADERS.paymentRequired,
        Buffer.from(json).toString('base64'),
      );
      if (receipt !== undefined) fields.push(X402_HEADERS.paymentResponse, receipt);
      res.writeHead(402, fields);
      res.end(json);
    });
  }

  /** Identity's answer about the key: refused, or on to the key's rate limit. */
  private verified(call: DataCall, result: Verification<KeyVerifyReply>): void {
    if (!result.ok) {
      if (result.problem.status === 401) return this.refuseKey(call, true);
      return this.refuse(call, result.problem);
    }
    const key = result.value;
    this.withinAccount(call, key.key_id, key.account_id, key.plan, (d) => this.limited(call, key, d));
  }

  /**
   * The key's (or session's) own bucket `bucket` (a new one starts from the account's retired
   * keys), then the account-wide ceiling: a call its own bucket allows also takes a token of the
   * account's, so many keys of one account draw at most ACCOUNT_RATE_MULTIPLE times one key's
   * budget. The tighter decision is the one answered. One round trip on Redis (takeWithin).
   */
  private withinAccount(
    call: DataCall,
    bucket: string,
    accountId: string,
    plan: Plan,
    then: (d: RateDecision) => void,
  ): void {
    const taken = this.options.limiter.takeWithin(
      bucket,
      this.options.plans[plan],
      retiredKeysBucket(accountId),
      accountBucket(accountId),
      this.options.accountPlans[plan],
    );
    const tighter = ({ own, account }: WithinDecision) =>
      then(account === undefined || account.allowed ? own : { ...account, accountWide: true });
    if (taken instanceof Promise) taken.then(tighter, (err: unknown) => this.fail(call, err));
    else tighter(taken);
  }

  /** Rate-limit fields on every answer to a valid key; a spent budget is 429, a gate below the plan 403. */
  private limited(call: DataCall, key: KeyVerifyReply, decision: RateDecision): void {
    this.admitted(call, key.plan, decision, {
      account_id: key.account_id,
      plan: key.plan,
      auth: 'api_key',
      key_id: key.key_id,
      session_id: null,
    });
  }

  /** A vouched-for caller within its rate limit and its plan's gate goes on to the data service. */
  private admitted(call: DataCall, plan: Plan, decision: RateDecision, caller: Caller): void {
    addFields(call.fields, rateLimitHeaders(decision));
    if (!decision.allowed) {
      const wait = decision.retryAfterS;
      const detail = decision.accountWide
        ? `This account's keys and sessions together allow ${decision.limit} requests per minute (ACCOUNT_RATE_MULTIPLE times the plan's per-key limit); retry in ${wait} s, or move to a larger plan.`
        : `This plan allows ${decision.limit} requests per minute; retry in ${wait} s.`;
      return this.refuse(call, problem('rate_limit', detail, { retryAfter: wait }));
    }
    const refusal = gateRefusal(plan, call.target);
    if (refusal) return this.refuse(call, problem('tier_forbidden', refusal));
    this.sign(call, caller);
  }

  /** The caller's signed assertion, from the signer's cache when it holds one. */
  private sign(call: DataCall, caller: Caller): void {
    const token = this.options.signer.tokenFor(caller);
    if (typeof token === 'string') this.forward(call, token);
    else
      token.then(
        (t) => this.forward(call, t),
        (err) => this.fail(call, err),
      );
  }

  /** A body is read whole at the edge first, so no upstream socket waits for a slow client. */
  private forward(call: DataCall, token: string): void {
    if (call.req.method === 'GET' || call.req.method === 'HEAD')
      return void this.send(call, token, undefined);
    readBody(call.req, call.res, this.options.bodies).then(
      (read) => {
        if (read.ok) return void this.send(call, token, read.body);
        call.fields.push(...CLOSE_FIELDS);
        this.refuse(call, read.problem);
      },
      (err) => this.fail(call, err),
    );
  }

  /**
   * The keep-alive request to the next replica of the data service (its UpstreamPool); the answer
   * goes back as it comes, or whole once settled on a paid call. A replica that could not be
   * reached (or broke the connection of this read before answering) passes the call to the next
   * one it has not tried (domain/replicas.ts). False when every replica was tried.
   */
  private send(
    call: DataCall,
    token: string,
    body: Buffer | undefined,
    tried: Set<number> = new Set(),
  ): boolean {
    const index = this.options.replicas.pick(tried, Date.now());
    if (index === undefined) return false;
    tried.add(index);
    const { req } = call;
    const tries: Tries = { token, body, tried, index };
    call.forwarding = this.pools[index]!.send(
      req.method ?? 'GET',
      req.url ?? '/',
      this.upstreamFields(call, token, body, this.options.replicas.urls[index]!),
      body,
      new Attempt(this, call, tries, call.paid ? this.paidCalls.sink(call) : undefined),
    );
    return true;
  }

  /**
   * A request that got no answer from its replica: that replica rests if it could not be reached,
   * and the call goes to another one when it may (mayTryElsewhere), else answers 503 or 504.
   * undici reports a connection the replica closed before answering as UND_ERR_SOCKET, where
   * node:http said ECONNRESET.
   */
  retried(call: DataCall, tries: Tries, err: NodeJS.ErrnoException): boolean {
    const { replicas } = this.options;
    const code = err.code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : err.code;
    if (unreachable(code)) replicas.refused(tries.index, Date.now());
    const again =
      !call.res.headersSent &&
      !call.res.destroyed &&
      mayTryElsewhere(code, call.req.method) &&
      this.send(call, tries.token, tries.body, tries.tried);
    if (again)
      this.options.logger.warn(
        { service: 'data', code: err.code, replica: tries.index },
        'upstream failed, trying another replica',
      );
    return again;
  }

  /** The request's fields for the data service, as a flat list like the answer's. */
  private upstreamFields(call: DataCall, token: string, body: Buffer | undefined, upstream: URL): string[] {
    const incoming = call.req.headers;
    const headers: string[] = [];
    for (const name in incoming) {
      if (NOT_FORWARDED.has(name)) continue;
      const value = incoming[name]!;
      if (typeof value === 'string') headers.push(name, value);
      else for (const v of value) headers.push(name, v);
    }
    // An HTTP/1.0 client may have sent no Host.
    if (incoming.host === undefined) headers.push('host', upstream.host);
    // A body read whole goes on with its length (a chunked one had none); without one, none.
    if (body !== undefined) headers.push('content-length', String(body.length));
    headers.push(
      INTERNAL_ASSERTION_HEADER,
      token,
      'x-request-id',
      call.fields[REQUEST_ID_AT]!,
      'traceparent',
      call.fields[TRACEPARENT_AT]!,
      // One client address, replaced rather than appended to, as on the express path (proxy.ts).
      'x-forwarded-for',
      call.client,
    );
    return headers;
  }

  /**
   * A refused connection is 503 (retryable), a silent service 504; a half-sent answer is cut.
   * A client that left first has nothing to be told.
   */
  upstreamFailed(call: DataCall, err: NodeJS.ErrnoException): void {
    if (call.res.destroyed) return;
    this.options.logger.warn({ service: 'data', code: err.code }, 'upstream failed');
    if (call.res.headersSent) return void call.res.destroy();
    this.refuse(
      call,
      isTimeout(err)
        ? problem('gateway_timeout', 'The data service did not answer in time.')
        : problem('service_unavailable', 'The data service is unavailable; try again shortly.', {
            retryAfter: 1,
          }),
    );
  }

  /** A metric is a GET resource: another method is a 405 with `Allow`, whatever the credential. */
  private wrongMethod(call: DataCall): void {
    const refusal = methodNotAllowed(call.req.method ?? '', call.path, ['GET', 'HEAD']);
    addFields(call.fields, refusal.headers);
    if (closesUnread(call.req, this.options.bodies)) call.fields.push(...CLOSE_FIELDS);
    this.refuse(call, refusal.body);
  }

  /** A refused key: 401 with the bearer challenge (RFC 9110 requires one on every 401). */
  private refuseKey(call: DataCall, presented: boolean): void {
    call.fields.push('www-authenticate', bearerChallenge(presented));
    this.refuse(call, problem('unauthorized', 'The API key is not valid.'));
  }

  private refuse(call: DataCall, body: Problem): void {
    writeProblem(call.res, body, call.fields);
  }

  private fail(call: DataCall, err: unknown): void {
    this.options.logger.error({ err }, 'data edge failed');
    if (!call.res.headersSent)
      this.refuse(call, problem('internal', 'The server failed to answer this request.'));
  }
}

/** What a call needs to be sent again to another replica of the data service. */
interface Tries {
  token: string;
  body: Buffer | undefined;
  /** The replicas tried so far, by index, this one included. */
  tried: Set<number>;
  index: number;
}

/**
 * One try of a call on one replica, and where its answer goes. A call that is not paid for is
 * passed on as it comes: the fields less the hop-by-hop ones with the edge's own, and the body
 * piece by piece; a one-piece body (the usual data answer) leaves in the same write as the
 * fields. A paid call's answer goes to `paid` (PaidCalls.sink), read whole. No answer at all may
 * go to another replica (DataEdge.retried).
 */
class Attempt implements AnswerSink {
  private status = 502;
  private fields: Fields = [];
  private headed = false;

  constructor(
    private readonly edge: DataEdge,
    private readonly call: DataCall,
    private readonly tries: Tries,
    private readonly paid: AnswerSink | undefined,
  ) {}

  head(status: number, rawHeaders: string[]): void {
    this.headed = true;
    if (this.paid) return this.paid.head(status, rawHeaders);
    this.status = status;
    this.fields = answerFields(rawHeaders, this.call.fields);
  }

  chunk(data: Buffer, resume: () => void): boolean {
    if (this.paid) return this.paid.chunk(data, resume);
    const { res } = this.call;
    if (res.destroyed) return true; // its close cancels the rest
    if (!res.headersSent) res.writeHead(this.status, this.fields);
    if (res.write(data)) return true;
    res.once('drain', resume);
    return false;
  }

  end(last: Buffer | undefined): void {
    if (this.paid) return this.paid.end(last);
    const { res } = this.call;
    if (res.destroyed) return;
    if (res.headersSent) res.end(last);
    else endWith(res, this.status, this.fields, last);
  }

  failed(err: NodeJS.ErrnoException): void {
    if (!this.headed && this.edge.retried(this.call, this.tries, err)) return;
    if (this.paid) this.paid.failed(err);
    else this.edge.upstreamFailed(this.call, err);
  }
}

/** Who the data service is told pays: no account, no plan; the payment buys any live metric. */
const X402_CALLER: Caller = { account_id: null, plan: null, auth: 'x402', key_id: null, session_id: null };

export type { DataCall };

/** The data path's request listener, and the closing of its connections to the data service. */
export function dataEdge(options: DataEdgeOptions): {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  close: () => Promise<void>;
} {
  const edge = new DataEdge(options);
  return { listener: (req, res) => edge.handle(req, res), close: () => edge.close() };
}
