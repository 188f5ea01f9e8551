import { Pool, type Dispatcher } from 'undici';

/**
 * The data edge's side of one forwarded call: what the data service answered, handed over in
 * as few steps as the answer allows.
 */
export interface AnswerSink {
  /** The answer's status line and fields as received (names as sent, values latin1). */
  head(status: number, rawHeaders: string[]): void;
  /** A piece of the body; false when the client is slow (the rest waits for `resume`). */
  chunk(data: Buffer, resume: () => void): boolean;
  /** The end of the body, with its last piece (the whole body of a one-piece answer). */
  end(last: Buffer | undefined): void;
  /** No answer, or not all of it: refused, timed out, cut, or cancelled as the client left. */
  failed(err: NodeJS.ErrnoException): void;
}

/** Undici's codes of an upstream that did not answer in time (headersTimeout, bodyTimeout). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function isTimeout(err: NodeJS.ErrnoException): boolean {
  return err.code !== undefined && TIMEOUT_CODES.has(err.code);
}

/**
 * One call in flight to the data service, as undici's dispatch handler (its native callback
 * form: raw fields, no stream, no parsed-header object). The last body piece is held back until
 * the next arrives or the body ends, so a one-piece answer goes out with its fields in one write.
 */
class Forwarding implements Dispatcher.DispatchHandler {
  private abortUpstream: ((err?: Error) => void) | undefined;
  private held: Buffer | undefined;
  private cancelled = false;
  private done = false;

  constructor(private readonly sink: AnswerSink) {}

  /** The client left: the upstream request is dropped (now, or as soon as it has a socket). */
  cancel(): void {
    if (this.done) return;
    this.cancelled = true;
    this.abortUpstream?.(new Error('the client left'));
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.cancelled) abort(new Error('the client left'));
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    // 1xx answers (100 Continue, 103 Early Hints) stay between the edge and the data service.
    if (status < 200) return true;
    const fields = new Array<string>(raw.length);
    for (let i = 0; i < raw.length; i++) fields[i] = raw[i]!.toString('latin1');
    this.resume = resume;
    this.sink.head(status, fields);
    return true;
  }

  private resume: () => void = () => undefined;

  onData(chunk: Buffer): boolean {
    const earlier = this.held;
    this.held = chunk;
    return earlier === undefined || this.sink.chunk(earlier, this.resume);
  }

  onComplete(): void {
    this.done = true;
    const last = this.held;
    this.held = undefined;
    this.sink.end(last);
  }

  onError(err: Error): void {
    this.done = true;
    this.held = undefined;
    this.sink.failed(err as NodeJS.ErrnoException);
  }
}

export type { Forwarding };

/**
 * Keep-alive connections to one service, one request at a time on each (no pipelining): a pool
 * of undici clients, at most `connections` sockets. A service slower than `timeoutMs` to send its
 * fields, or between two pieces of its body, fails the call with a timeout code (isTimeout).
 */
export class UpstreamPool {
  private readonly pool: Pool;

  constructor(origin: string, timeoutMs: number, connections = 512) {
    this.pool = new Pool(origin, {
      connections,
      pipelining: 1,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // The services keep idle sockets 65 s (http-kit's startServer); the edge lets go first.
      keepAliveTimeout: 60_000,
      keepAliveMaxTimeout: 60_000,
    });
  }

  /**
   * Sends a request (`headers` flat [name, value, ...], Host included); its answer goes to `sink`.
   * The handle cancels it.
   */
  send(
    method: string,
    path: string,
    headers: string[],
    body: Buffer | undefined,
    sink: AnswerSink,
  ): Forwarding {
    const forwarding = new Forwarding(sink);
    this.pool.dispatch(
      { method: method as Dispatcher.HttpMethod, path, headers, body: body ?? null },
      forwarding,
    );
    return forwarding;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
