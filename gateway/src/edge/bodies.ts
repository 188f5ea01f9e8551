import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Problem } from '@meridian/contracts';
import { HttpProblem, problem, writeProblem } from '@meridian/http-kit';

export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

export type BodyRead = { ok: true; body: Buffer | undefined } | { ok: false; problem: Problem };

/** Sent with a refused body: what is left of it is not read, so the connection cannot carry another request. */
export const CLOSE_FIELDS: readonly string[] = ['connection', 'close'];

/** Requests whose client waits for `100 Continue` before it sends the body (RFC 9110 10.1.1). */
const expectingContinue = new WeakSet<IncomingMessage>();

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function tooLarge(limits: BodyLimits): { ok: false; problem: Problem } {
  return {
    ok: false,
    problem: problem('payload_too_large', `The request body is larger than ${limits.maxBytes} bytes.`),
  };
}

function declaredTooLarge(req: IncomingMessage, limits: BodyLimits): boolean {
  return Number(req.headers['content-length'] ?? 0) > limits.maxBytes;
}

/**
 * The server's `checkContinue` listener: an announced body past the limit is refused at once,
 * before the client sends it; any other waits for `100 Continue` until the edge reads its body,
 * so a request refused earlier (no session, cross-site, too many in flight) is never uploaded.
 */
export function checkContinue(
  limits: BodyLimits,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (declaredTooLarge(req, limits)) return writeProblem(res, tooLarge(limits).problem, CLOSE_FIELDS);
    expectingContinue.add(req);
    handler(req, res);
  };
}

/**
 * Whether an answer that leaves its request's body unread must close the connection. A body
 * announced within the limit is read and thrown away by node once the answer is sent, and the
 * connection serves the next request: closing instead would reset a client still uploading, which
 * may then never read the answer (node's server does not linger after a close). A body of unknown
 * length, one announced past the limit, or one its client holds back until `100 Continue` is not
 * read: the connection closes after the answer.
 */
export function closesUnread(req: IncomingMessage, limits: BodyLimits): boolean {
  if (!hasBody(req)) return false;
  const bounded = req.headers['transfer-encoding'] === undefined && !declaredTooLarge(req, limits);
  return !bounded || expectingContinue.has(req);
}

/**
 * Express step, before any refusal: a request whose unread body would close the connection
 * (closesUnread) is answered with `Connection: close` whatever the answer, so node never reads
 * and drops an unbounded body after an early refusal.
 */
export function closeUnboundedBodies(limits: BodyLimits) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (closesUnread(req, limits)) res.setHeader('connection', 'close');
    next();
  };
}

/**
 * The whole body, read at the edge before any upstream socket is taken: at most `maxBytes`
 * (413), arrived in full within `timeoutMs` of the start (408), so a client that trickles or
 * stalls its body holds a socket of the edge only, and only that long.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, limits: BodyLimits): Promise<BodyRead> {
  if (!hasBody(req)) return Promise.resolve({ ok: true, body: undefined });
  if (declaredTooLarge(req, limits)) return Promise.resolve(tooLarge(limits));
  if (expectingContinue.has(req)) res.writeContinue();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) return finish(tooLarge(limits));
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const cut = () => finish({ ok: false, problem: problem('bad_request', 'The request body was cut off.') });
    const onError = cut;
    const onClose = () => {
      if (!req.complete) cut();
    };
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          problem: problem(
            'request_timeout',
            `The request body did not arrive within ${limits.timeoutMs} ms.`,
            {
              retryAfter: 1,
            },
          ),
        }),
      limits.timeoutMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Express step: the body is read and bounded here; the proxy sends it on from `res.locals.body`. */
export function boundedBodies(limits: BodyLimits) {
  return (req: Request, res: Response, next: NextFunction): void => {
    readBody(req, res, limits).then((read) => {
      if (!read.ok) return next(new HttpProblem(read.problem, { connection: 'close' }));
      res.locals.body = read.body;
      next();
    }, next);
  };
}
