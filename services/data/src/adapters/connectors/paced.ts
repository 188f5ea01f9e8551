/**
 * Runs `fn` over `items` within an upstream's rate limit: at most `concurrency` at once and one start
 * per `spacingMs` (a bound on concurrency alone lets fast answers exceed a per-second limit). Stops
 * starting new ones at the first failure, which it throws. Spacing is on the monotonic clock: a wall
 * clock stepped by time sync would squeeze two starts together or stall them.
 */
export async function paced<T>(
  items: readonly T[],
  { concurrency, spacingMs }: { concurrency: number; spacingMs: number },
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let lastStart = -Infinity;
  let failed = false;
  /** Waits until `spacingMs` after the last start, then takes the start (one thread: no race). */
  const turn = async () => {
    for (
      let wait = lastStart + spacingMs - performance.now();
      wait > 0;
      wait = lastStart + spacingMs - performance.now()
    )
      await new Promise((r) => setTimeout(r, wait));
    lastStart = performance.now();
  };
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      await turn();
      if (failed) return;
      try {
        await fn(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
