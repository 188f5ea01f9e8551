import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  formatTraceparent,
  traceFromHeaders,
  type TraceContext,
} from '@meridian/observability';

/**
 * The trace of an incoming request: the caller's request id and traceparent continued, or new
 * ones. For a path that writes its answer's fields itself in one writeHead (the gateway's data
 * edge), which must echo both; setHeader first would put every writeHead on node's slow path.
 */
export function requestTrace(req: IncomingMessage): TraceContext {
  return traceFromHeaders({
    traceparent: req.headers[TRACEPARENT_HEADER] as string | undefined,
    requestId: req.headers[REQUEST_ID_HEADER] as string | undefined,
  });
}

/**
 * The trace of an incoming request (requestTrace), echoed on the answer. Every way into a process
 * (express, lean routes) starts its work here; the gateway's data edge echoes it itself.
 */
export function answerTrace(req: IncomingMessage, res: ServerResponse): TraceContext {
  const trace = requestTrace(req);
  res.setHeader(REQUEST_ID_HEADER, trace.requestId);
  res.setHeader(TRACEPARENT_HEADER, formatTraceparent(trace));
  return trace;
}
