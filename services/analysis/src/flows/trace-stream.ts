import { ok, refuse, type Result } from '@meridian/contracts';
import { TRACE_CHANNEL } from '../adapters/trace-feed.js';
import { findRun } from '../db/repositories/runs.js';
import { notifyTrace } from '../db/repositories/trace-events.js';
import type { AnalysisDeps } from '../deps.js';
import { TERMINAL, traceAfter } from './read-runs.js';

const KEEPALIVE_MS = 15_000;

/** Where a stream's server-sent events go (the route's response). */
export interface TraceSink {
  write(chunk: string): void;
  end(): void;
}

export interface TraceStream {
  /** Sends what is stored, then each change as it is announced. */
  start(): void;
  /** The client left, or the stream ended: no more reads, timers or listeners. */
  close(): void;
}

/**
 * Tells the streams of every replica that a run's trace or status changed. Called after the change
 * is committed; a notice that cannot be sent is logged (the streams' keep-alive reads catch up).
 */
export async function announceTrace(deps: AnalysisDeps, runId: string): Promise<void> {
  if (!deps.traces.shared) return deps.traces.wake(runId);
  try {
    await notifyTrace(deps.db, TRACE_CHANNEL, runId);
  } catch (err) {
    deps.logger.warn({ err, run_id: runId }, 'a trace notice was not sent');
  }
}

/** The refusal past a cap of open streams: of the run, or of the account. */
function tooManyStreams(deps: AnalysisDeps, over: 'run' | 'account'): Result<TraceStream> {
  const { perRun, perAccount } = deps.streams.caps;
  return refuse(
    'too_many_streams',
    over === 'run'
      ? `${perRun} trace streams of this run are open already; close one first.`
      : `${perAccount} trace streams of this account are open already; close one first.`,
  );
}

/**
 * A run's live trace as server-sent events: the stored events after `afterSeq`, then new ones when
 * the run's writer announces them (never polled), then `event: end` once the run has finished. A
 * comment every 15 s keeps an idle connection open and reads once more, in case a notice was lost.
 * Refused past TRACE_STREAMS_PER_RUN or TRACE_STREAMS_PER_ACCOUNT streams open on this replica.
 */
export function openTraceStream(
  deps: AnalysisDeps,
  accountId: string,
  runId: string,
  afterSeq: number,
  sink: TraceSink,
): Result<TraceStream> {
  const over = deps.streams.take(accountId, runId);
  if (over !== null) return tooManyStreams(deps, over);
  let seq = afterSeq;
  let closed = false;
  let reading = false;
  let again = false;
  let unwatch = () => {};
  let keepalive: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    unwatch();
    clearInterval(keepalive);
    deps.streams.give(accountId, runId);
  };
  /** One read: the run's status first, so that every event stored before it finished is sent. */
  const pump = async () => {
    const run = await findRun(deps.db, runId);
    const events = await traceAfter(deps, runId, seq);
    if (closed) return;
    for (const event of events) {
      sink.write(`id: ${event.seq}\nevent: trace\ndata: ${JSON.stringify(event)}\n\n`);
      seq = event.seq;
    }
    if (!run || TERMINAL.has(run.status)) {
      sink.write(
        `event: end\ndata: ${JSON.stringify({ run_id: runId, status: run?.status ?? 'failed' })}\n\n`,
      );
      close();
      sink.end();
    }
  };
  /** Reads now, or once more after the read in flight when a change comes meanwhile. */
  const wake = () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void (async () => {
      try {
        do {
          again = false;
          await pump();
        } while (again && !closed);
      } catch (err) {
        deps.logger.warn({ err, run_id: runId }, 'a trace stream could not be read; it is closed');
        close();
        sink.end();
      } finally {
        reading = false;
      }
    })();
  };
  return ok({
    start: () => {
      unwatch = deps.traces.watch(runId, wake);
      keepalive = setInterval(() => {
        sink.write(': keep-alive\n\n');
        wake();
      }, KEEPALIVE_MS);
      wake();
    },
    close,
  });
}
