import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  formatTraceparent,
  traceFromHeaders,
  type TraceContext,
} from '@meridian/observability';

/**
 * The trace of an incoming request (the caller's request id and traceparent continued, or new
 * ones), echoed on the answer. Every way into a process (express, lean routes, the gateway's data
 * edge) starts its work here.
 */
export function answerTrace(req: IncomingMessage, res: ServerResponse): TraceContext {
  const trace = traceFromHeaders({
    traceparent: req.headers[TRACEPARENT_HEADER] as string | undefined,
    requestId: req.headers[REQUEST_ID_HEADER] as string | undefined,
  });
  res.setHeader(REQUEST_ID_HEADER, trace.requestId);
  res.setHeader(TRACEPARENT_HEADER, formatTraceparent(trace));
  return trace;
}
