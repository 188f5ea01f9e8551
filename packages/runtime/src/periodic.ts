export interface Periodic {
  /** Resolves when the runs begun so far have finished. */
  settled(): Promise<void>;
  /** No further runs; resolves when the current one has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then every `everyMs`, one run at a time: a tick that finds a run still going
 * is skipped, so a slow run neither overlaps the next nor queues a backlog. A failed run is
 * reported and the next tick tries again.
 */
export function startPeriodic(
  task: () => Promise<void>,
  everyMs: number,
  onError: (err: unknown) => void,
): Periodic {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const tick = () => {
    if (busy || stopped) return;
    busy = true;
    running = task()
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    settled: () => running,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
