import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync, randomUUID } from 'node:crypto';

/** The request id and W3C trace context of the work in progress. */
export interface TraceContext {
  requestId: string;
  traceId: string;
  spanId: string;
  flags: string;
}

const storage = new AsyncLocalStorage<TraceContext>();
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export const REQUEST_ID_HEADER = 'x-request-id';
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * Trace and span ids come from a pooled random buffer (as randomUUID does): one getrandom call
 * per few hundred requests instead of two per request. The ids identify, they guard nothing.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

export function currentTrace(): TraceContext | undefined {
  return storage.getStore();
}

export function runWithTrace<T>(trace: TraceContext, fn: () => T): T {
  return storage.run(trace, fn);
}

/** Continue the caller's trace with a new span, or start a new trace when there is none or it is malformed. */
export function traceFromHeaders(headers: {
  traceparent?: string | undefined;
  requestId?: string | undefined;
}): TraceContext {
  const match = headers.traceparent ? TRACEPARENT.exec(headers.traceparent) : null;
  const validId = headers.requestId && /^[\w.:-]{1,128}$/.test(headers.requestId);
  return {
    requestId: validId ? headers.requestId! : randomUUID(),
    traceId: match && !/^0+$/.test(match[1]!) ? match[1]! : randomHex(16),
    spanId: randomHex(8),
    flags: match ? match[3]! : '01',
  };
}

export function formatTraceparent(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/** Headers that carry the current trace to the next hop (HTTP or NATS). */
export function outgoingTraceHeaders(trace = currentTrace()): Record<string, string> {
  if (!trace) return {};
  return { [REQUEST_ID_HEADER]: trace.requestId, [TRACEPARENT_HEADER]: formatTraceparent(trace) };
}
