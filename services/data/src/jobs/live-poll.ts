import { ingestBatchSchema, type IngestBatch } from '@meridian/contracts';
import type { Poll } from '../adapters/connectors/connector.js';
import { UpstreamError, type UpstreamHttp } from '../adapters/connectors/upstream-http.js';
import type { PollOutcome } from '../domain/connector-health.js';
import type { Ingestor } from '../flows/ingestor.js';

/** One poll, written all or nothing, told as an outcome; never throws. */
export async function pollOnce(
  poll: Poll,
  http: UpstreamHttp,
  ingestor: Ingestor,
  now: () => number,
): Promise<PollOutcome> {
  let batches: IngestBatch[];
  try {
    const answer = await poll(http, new Date(now()));
    batches = answer.map((b) => ingestBatchSchema.parse(b));
  } catch (err) {
    if (err instanceof UpstreamError)
      return {
        ok: false,
        kind: err.kind,
        message: err.message,
        at: now(),
        ...(err.status === undefined ? {} : { status: err.status }),
        ...(err.retryAfterMs === undefined ? {} : { retryAfterMs: err.retryAfterMs }),
      };
    const message = err instanceof Error ? err.message.slice(0, 300) : 'unreadable answer';
    return { ok: false, kind: 'malformed', message: `unreadable answer: ${message}`, at: now() };
  }
  const nonEmpty = batches.filter((b) => b.rows.length > 0);
  if (nonEmpty.length === 0) return { ok: true, rows: 0, at: now() };
  try {
    const result = await ingestor.ingestAll(nonEmpty);
    if (!result.ok) return { ok: false, kind: 'refused', message: result.detail, at: now() };
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 300) : 'store failed';
    return { ok: false, kind: 'store_failed', message, at: now() };
  }
  return { ok: true, rows: nonEmpty.reduce((n, b) => n + b.rows.length, 0), at: now() };
}
