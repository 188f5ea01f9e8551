import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ANSWER_KEEPING_HEADER,
  CLIENT_ADDRESS_HEADER,
  INTERNAL_ASSERTION_HEADER,
  SESSIONS_EPOCH_HEADER,
  type Problem,
} from '@meridian/contracts';
import { verifyClientAddress, writeProblem } from '@meridian/http-kit';
import { formatTraceparent, type TraceContext } from '@meridian/observability';
import proxyaddr from 'proxy-addr';
import { SeenAssertions, trustedProxies } from '../domain/client-address.js';
import { corsHeaders, isPreflight, type CorsPolicy } from '../domain/cors.js';
import { CLOSE_FIELDS } from './bodies.js';
import type { InFlightGate } from './in-flight.js';

/**
 * An answer's fields as node's flat [name, value, ...] list, names in lower case: writeHead takes
 * it as it is, where an object costs a copy and a setHeader per field.
 */
export type Fields = string[];

/** Where edgeFields puts the request id and the traceparent, which the upstream request repeats. */
export const REQUEST_ID_AT = 1;
export const TRACEPARENT_AT = 3;

/**
 * Fields the edge alone may set: a client's are dropped before any service sees the request, and
 * a service's (identity's sessions epoch) before the client sees the answer.
 */
export const INTERNAL_REQUEST_FIELDS: readonly string[] = [
  INTERNAL_ASSERTION_HEADER,
  CLIENT_ADDRESS_HEADER,
  SESSIONS_EPOCH_HEADER,
];
export const INTERNAL_ANSWER_FIELDS: readonly string[] = [SESSIONS_EPOCH_HEADER, ANSWER_KEEPING_HEADER];

/** One request on its way through the edge, whichever path it takes. */
export interface EdgeCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The edge's own answer fields so far: trace and CORS first, then limits and refusals. */
  fields: Fields;
  /** The address this call's budgets are kept under (EdgeFront.clientOf). */
  client: string;
  preflight: boolean;
  /** Gives back the call's place in flight (InFlightGate), once it has one. */
  leave?: () => void;
}

export function addFields(fields: Fields, more: Record<string, string>): void {
  for (const name in more) fields.push(name, more[name]!);
}

export function hasField(fields: Fields, name: string): boolean {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return true;
  return false;
}

/** The trace of the request echoed on its answer: the request id and this hop's traceparent. */
export function traceFields(trace: TraceContext): Fields {
  return [
    'x-request-id',
    trace.requestId,
    'traceparent',
    formatTraceparent(trace),
    'x-content-type-options',
    'nosniff',
  ];
}

export interface FrontRules {
  cors: CorsPolicy;
  /** Peers whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: string;
  /**
   * The internal secret's key: an edge of ours (the MCP server) names its client's address in
   * CLIENT_ADDRESS_HEADER signed with it, bound to one request; an assertion that does not verify
   * on this request, or was believed before, is ignored.
   */
  clientAddressKey: Uint8Array;
  /** Requests in flight per client address, one gate for both paths. */
  inFlight: InFlightGate;
}

/**
 * The first steps of every request on both paths: the trace and CORS fields of its answer, the
 * address its budgets are kept under, the internal fields a client may not send, and its place in
 * flight. The express path and the data path call these, so their answers cannot drift.
 */
export class EdgeFront {
  /** undefined when no proxy is trusted (TRUST_PROXY `none`): the peer is the client. */
  private readonly trusted: ReturnType<typeof proxyaddr.compile> | undefined;
  /** The assertions believed on this replica, so that none is believed twice. */
  private readonly assertions = new SeenAssertions();

  constructor(private readonly rules: FrontRules) {
    const proxies = trustedProxies(rules.trustProxy);
    this.trusted = proxies.length === 0 ? undefined : proxyaddr.compile(proxies);
  }

  open(req: IncomingMessage, res: ServerResponse, trace: TraceContext): EdgeCall {
    const fields = traceFields(trace);
    const preflight = isPreflight(req.method, req.headers);
    const cors = corsHeaders(this.rules.cors, req.headers.origin, preflight);
    if (cors) addFields(fields, cors);
    const client = this.clientOf(req);
    const headers = req.headers;
    for (const name of INTERNAL_REQUEST_FIELDS) if (headers[name] !== undefined) delete headers[name];
    return { req, res, fields, client, preflight };
  }

  /** Takes the call's place in flight; the 429 (closing the connection) when its address holds all. */
  enter(call: EdgeCall): Problem | undefined {
    const place = this.rules.inFlight.enter(call.client);
    if ('refused' in place) {
      call.fields.push(...CLOSE_FIELDS);
      return place.refused;
    }
    call.leave = place.leave;
    return undefined;
  }

  /**
   * The one an edge of ours vouches for with a valid signed assertion (the MCP server's caller),
   * else the one TRUST_PROXY yields.
   */
  private clientOf(req: IncomingMessage): string {
    const asserted = req.headers[CLIENT_ADDRESS_HEADER];
    // Believed on the one request it was signed for (method and target), once (its nonce).
    const vouched = asserted
      ? verifyClientAddress(
          asserted,
          { method: req.method ?? '', target: req.url ?? '' },
          this.rules.clientAddressKey,
        )
      : undefined;
    if (vouched && this.assertions.first(vouched.nonce, vouched.expires, Date.now())) return vouched.address;
    return this.trusted ? proxyaddr(req, this.trusted) : (req.socket.remoteAddress ?? '');
  }
}

/** A preflight is answered by the edge: 204 with the CORS fields. */
export function answerPreflight(call: EdgeCall): void {
  call.res.writeHead(204, call.fields);
  call.res.end();
}

/** A refusal of either path: problem+json with the call's fields. */
export function refuse(call: EdgeCall, body: Problem): void {
  writeProblem(call.res, body, call.fields);
}
