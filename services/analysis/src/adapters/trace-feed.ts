import { listenTo, type Listening } from '@meridian/db';
import type { Logger } from '@meridian/observability';

/** The Postgres channel a run's id is notified on when its trace or status changed. */
export const TRACE_CHANNEL = 'analysis_trace';

/**
 * Tells the open trace streams of this replica that a run's trace or status changed, so that they
 * read only then. On Postgres (`shared`) the writers NOTIFY and every replica LISTENs, so a stream
 * sees a run that another replica executes; on the embedded database (one process) the writer
 * wakes this feed directly.
 */
export class TraceFeed {
  private readonly watchers = new Map<string, Set<() => void>>();
  private listening: Listening | undefined;

  constructor(readonly shared: boolean) {}

  /** Calls `listener` at each change of the run until the returned function is called. */
  watch(runId: string, listener: () => void): () => void {
    let set = this.watchers.get(runId);
    if (!set) {
      set = new Set();
      this.watchers.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(runId) === set) this.watchers.delete(runId);
    };
  }

  wake(runId: string): void {
    for (const listener of [...(this.watchers.get(runId) ?? [])]) listener();
  }

  /** Listeners registered now, over every run. */
  watching(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** LISTENs on Postgres; after a lost connection every stream reads again (a notice may be lost). */
  async listen(databaseUrl: string, logger: Logger): Promise<void> {
    this.listening = await listenTo(databaseUrl, TRACE_CHANNEL, (runId) => this.wake(runId), {
      onGap: () => {
        for (const runId of [...this.watchers.keys()]) this.wake(runId);
      },
      onError: (err) => logger.warn({ err }, 'trace notifications interrupted; reconnecting'),
    });
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }
}
