import { ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { TRACE_CHANNEL } from '../adapters/trace-feed.js';
import { findRun } from '../db/repositories/runs.js';
import { notifyTrace } from '../db/repositories/trace-events.js';
import type { AnalysisDeps } from '../deps.js';
import { TERMINAL, traceAfter } from './read-runs.js';

const KEEPALIVE_MS = 15_000;
const UNPAID = 'awaiting_payment';

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

/**
 * A run's live trace as server-sent events: the stored events after `afterSeq`, then new ones when
 * the run's writer announces them (never polled), then `event: end` once the run has finished. A
 * comment every 15 s keeps an idle connection open and reads once more, in case a notice was lost.
 * Refused past TRACE_STREAMS_PER_RUN, _PER_ACCOUNT or _TOTAL streams open on this replica, and
 * for a run not paid for: it waits for money, not a worker, and a stream of it would never end.
 */
export function openTraceStream(
  deps: AnalysisDeps,
  accountId: string,
  run: { id: string; status: string },
  afterSeq: number,
  sink: TraceSink,
): Result<TraceStream, AnalysisRefusal> {
  if (run.status === UNPAID)
    return refuse('run_not_paid', 'This run is not paid for; its trace starts once it is.');
  const runId = run.id;
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
      sink.write(`id: ${event.seq}\n${serverSentEvent('trace', event)}`);
      seq = event.seq;
    }
    // A run not paid (a credit spend billing left unanswered) is ended as a finished one would be.
    if (!run || TERMINAL.has(run.status) || run.status === UNPAID) {
      sink.write(serverSentEvent('end', { run_id: runId, status: run?.status ?? 'failed' }));
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

function tooManyStreams(
  deps: AnalysisDeps,
  over: 'run' | 'account' | 'replica',
): Result<never, AnalysisRefusal> {
  const { perRun, perAccount } = deps.streams.caps;
  switch (over) {
    case 'run':
      return refuse(
        'too_many_streams',
        `${perRun} trace streams of this run are open already; close one first.`,
      );
    case 'account':
      return refuse(
        'too_many_streams',
        `${perAccount} trace streams of this account are open already; close one first.`,
      );
    case 'replica':
      return refuse('too_many_streams', 'Too many trace streams are open on this server; retry shortly.');
  }
}

const serverSentEvent = (event: string, data: unknown) =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
