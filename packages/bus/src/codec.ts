import { cloudEventSchema, type CloudEvent } from '@meridian/contracts';
import {
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  outgoingTraceHeaders,
  runWithTrace,
  traceFromHeaders,
} from '@meridian/observability';

export type Decoded = { ok: true; event: CloudEvent } | { ok: false; error: string };

/** A payload that is not a CloudEvent can never succeed, so callers dead-letter it at once. */
export function decodeEvent(text: string): Decoded {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'payload is not JSON' };
  }
  const parsed = cloudEventSchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `payload is not a CloudEvent: ${parsed.error.message}` };
  return { ok: true, event: parsed.data as CloudEvent };
}

export function lowerKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Headers of an outgoing message: the current trace, else the event's own, then the caller's. */
export function outgoingHeaders(
  explicit: Record<string, string> | undefined,
  traceparent?: string,
): Record<string, string> {
  const fromEvent: Record<string, string> = traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {};
  return { ...fromEvent, ...outgoingTraceHeaders(), ...lowerKeys(explicit) };
}

/** Run the handling of a message inside the trace its sender was in. */
export function withIncomingTrace<T>(headers: Record<string, string>, fn: () => T): T {
  const trace = traceFromHeaders({
    traceparent: headers[TRACEPARENT_HEADER],
    requestId: headers[REQUEST_ID_HEADER],
  });
  return runWithTrace(trace, fn);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Header values travel on one line; keep them short and printable. */
export function headerSafe(text: string, max = 500): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, max);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Delay before the next delivery after delivery `deliveryCount` failed; the last value repeats. */
export function backoffFor(backoffMs: readonly number[], deliveryCount: number): number {
  if (backoffMs.length === 0) return 0;
  return backoffMs[Math.min(deliveryCount - 1, backoffMs.length - 1)] ?? 0;
}
