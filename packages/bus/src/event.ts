import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@meridian/contracts';
import { currentTrace, formatTraceparent } from '@meridian/observability';

/** A CloudEvent with a fresh id, carrying the trace of the work that caused it. */
export function newEvent<T>(source: string, type: string, data: T): CloudEvent<T> {
  const trace = currentTrace();
  return {
    specversion: '1.0',
    id: randomUUID(),
    source,
    type,
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    data,
    ...(trace ? { traceparent: formatTraceparent(trace) } : {}),
  };
}
