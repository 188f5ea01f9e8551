import type { ServerResponse } from 'node:http';
import { INTERNAL_ASSERTION_HEADER, type Caller, type PaymentCallRequest } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import type { Logger } from '@meridian/observability';
import { mayTryElsewhere, unreachable, type Replicas } from '../domain/replicas.js';
import type { DataTarget } from '../domain/data-route.js';
import type { AssertionSigner } from './assertion.js';
import { CLOSE_FIELDS, readBody, type BodyLimits } from './bodies.js';
import {
  hasField,
  INTERNAL_ANSWER_FIELDS,
  INTERNAL_REQUEST_FIELDS,
  refuse,
  REQUEST_ID_AT,
  TRACEPARENT_AT,
  type EdgeCall,
  type Fields,
} from './call.js';
import { isTimeout, UpstreamPool, type AnswerSink, type Forwarding } from './upstream.js';

/** A paid call between its verification and its settlement. */
export interface PaidCall {
  request: PaymentCallRequest;
}

/** A data call on its way through the edge, on either path. */
/** Where whole answers go that the data service says may be kept (kept-data.ts's KeptData). */
export interface AnswerKeeper {
  keep(key: string, status: number, rawFields: string[], body: Buffer): void;
}

export interface DataCall extends EdgeCall {
  path: string;
  /** The query string, without its `?`. */
  query: string;
  target: DataTarget | undefined;
  /** A paid call (x402) whose payment was verified: its answer is held until it is settled. */
  paid?: PaidCall;
  /** The request to the data service, once sent: cancelled if the client leaves first. */
  forwarding?: Forwarding;
  /** Where its answer is kept when the data service says it may be (KeptData.serve missed it). */
  keepAs?: string;
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
  ...INTERNAL_REQUEST_FIELDS,
  'x-request-id',
  'traceparent',
  'x-forwarded-for',
  'expect',
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  ...INTERNAL_ANSWER_FIELDS,
]);

/**
 * The upstream's answer fields as received, less the hop-by-hop ones and those the edge sets
 * (which win), then the edge's.
 */
export function answerFields(raw: string[], edge: Fields): Fields {
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
export function endWith(res: ServerResponse, status: number, fields: Fields, body: Buffer | undefined): void {
  res.writeHead(status, fields);
  if (body === undefined) res.end();
  else if (body.length <= ONE_WRITE_BYTES) res.end(body.toString('latin1'), 'latin1');
  else res.end(body);
}

export interface ForwardingOptions {
  /** The data service's replicas (DATA_URL), taken in turn. */
  replicas: Replicas;
  timeoutMs: number;
  signer: AssertionSigner;
  bodies: BodyLimits;
  logger: Logger;
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
 * The hop to the data service: the caller's signed assertion, the body read whole at the edge,
 * and a keep-alive request to the next replica (an undici pool each); the answer goes back as it
 * comes, or to the paid call's sink to be settled first.
 */
export class DataForwarder {
  /** A keep-alive pool per replica of the data service, in the order of DATA_URL. */
  private readonly pools: UpstreamPool[];

  constructor(
    private readonly options: ForwardingOptions,
    private readonly paidSink: (call: DataCall) => AnswerSink,
    /** The answers this replica keeps (DATA_EDGE_CACHE_MS), when it keeps any. */
    readonly kept?: AnswerKeeper,
  ) {
    this.pools = options.replicas.urls.map((url) => new UpstreamPool(url.origin, options.timeoutMs));
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.close()));
  }

  /**
   * The caller's signed assertion (from the signer's cache when it holds one), then the body,
   * read whole first so no upstream socket waits for a slow client.
   */
  async forward(call: DataCall, caller: Caller): Promise<void> {
    const token = await this.options.signer.tokenFor(caller);
    const method = call.req.method;
    if (method === 'GET' || method === 'HEAD') return void this.send(call, token, undefined);
    const read = await readBody(call.req, call.res, this.options.bodies);
    if (read.ok) return void this.send(call, token, read.body);
    call.fields.push(...CLOSE_FIELDS);
    refuse(call, read.problem);
  }

  /**
   * The keep-alive request to the next replica of the data service. A replica that could not be
   * reached (or broke the connection of this read before answering) passes the call to the next
   * one it has not tried (domain/replicas.ts). False when every replica was tried.
   */
  private send(call: DataCall, token: string, body: Buffer | undefined, tried = new Set<number>()): boolean {
    const { replicas } = this.options;
    const index = replicas.pick(tried, Date.now());
    if (index === undefined) return false;
    tried.add(index);
    const { req } = call;
    const tries: Tries = { token, body, tried, index };
    call.forwarding = this.pools[index]!.send(
      req.method ?? 'GET',
      req.url ?? '/',
      upstreamFields(call, token, body, replicas.urls[index]!),
      body,
      new Attempt(this, call, tries, call.paid ? this.paidSink(call) : undefined),
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

  /**
   * A refused connection is 503 (retryable), a silent service 504; a half-sent answer is cut.
   * A client that left first has nothing to be told.
   */
  upstreamFailed(call: DataCall, err: NodeJS.ErrnoException): void {
    if (call.res.destroyed) return;
    this.options.logger.warn({ service: 'data', code: err.code }, 'upstream failed');
    if (call.res.headersSent) return void call.res.destroy();
    refuse(
      call,
      isTimeout(err)
        ? problem('gateway_timeout', 'The data service did not answer in time.')
        : problem('service_unavailable', 'The data service is unavailable; try again shortly.', {
            retryAfter: 1,
          }),
    );
  }
}

/** The request's fields for the data service, as a flat list like the answer's. */
function upstreamFields(call: DataCall, token: string, body: Buffer | undefined, upstream: URL): string[] {
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
 * One try of a call on one replica, and where its answer goes. A call that is not paid for is
 * passed on as it comes: the fields less the hop-by-hop ones with the edge's own, and the body
 * piece by piece; a one-piece body (the usual data answer) leaves in the same write as the
 * fields. A paid call's answer goes to `paid` (PaidCalls.sink), read whole. No answer at all may
 * go to another replica (DataForwarder.retried).
 */
class Attempt implements AnswerSink {
  private status = 502;
  private fields: Fields = [];
  private headed = false;
  /** The answer's fields and pieces as received, while it may be kept. */
  private raw: string[] = [];
  private pieces: Buffer[] | undefined;

  constructor(
    private readonly forwarder: DataForwarder,
    private readonly call: DataCall,
    private readonly tries: Tries,
    private readonly paid: AnswerSink | undefined,
  ) {}

  head(status: number, rawHeaders: string[]): void {
    this.headed = true;
    if (this.paid) return this.paid.head(status, rawHeaders);
    this.status = status;
    this.fields = answerFields(rawHeaders, this.call.fields);
    if (this.call.keepAs !== undefined && status === 200) {
      this.raw = rawHeaders;
      this.pieces = [];
    }
  }

  chunk(data: Buffer, resume: () => void): boolean {
    if (this.paid) return this.paid.chunk(data, resume);
    this.pieces?.push(data);
    const { res } = this.call;
    if (res.destroyed) return true; // its close cancels the rest
    if (!res.headersSent) res.writeHead(this.status, this.fields);
    if (res.write(data)) return true;
    res.once('drain', resume);
    return false;
  }

  end(last: Buffer | undefined): void {
    if (this.paid) return this.paid.end(last);
    if (this.pieces) this.kept(last);
    const { res } = this.call;
    if (res.destroyed) return;
    if (res.headersSent) res.end(last);
    else endWith(res, this.status, this.fields, last);
  }

  /** A whole answer of a call KeptData missed: kept if the data service says it may be. */
  private kept(last: Buffer | undefined): void {
    const pieces = this.pieces!;
    if (last !== undefined) pieces.push(last);
    const body = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    this.forwarder.kept?.keep(this.call.keepAs!, this.status, this.raw, body);
  }

  failed(err: NodeJS.ErrnoException): void {
    if (!this.headed && this.forwarder.retried(this.call, this.tries, err)) return;
    if (this.paid) this.paid.failed(err);
    else this.forwarder.upstreamFailed(this.call, err);
  }
}
