import { getHeapStatistics } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { collectGarbage } from './main.js';

export interface CompactionPolicy {
  /** Growth of the V8 heap's committed size since the last compaction that makes one worth it. */
  growthBytes: number;
  /** The event loop's busy share since the previous call above which the process is not idle. */
  maxUtilization: number;
}

/** 4 MB of growth; busy at most a tenth of the time (a burst of the caller's own work included). */
export const IDLE_COMPACTION: CompactionPolicy = { growthBytes: 4 * 1024 * 1024, maxUtilization: 0.1 };

/** Whether to compact now: the heap grew enough, and nothing but the caller's own work ran. */
export function compactionDue(grownBytes: number, utilization: number, policy: CompactionPolicy): boolean {
  return grownBytes >= policy.growthBytes && utilization <= policy.maxUtilization;
}

/** What the compaction reads and does: V8's heap and GC, the event loop's utilization. */
export interface CompactionProbe {
  committedBytes: () => number;
  /** The busy share of the event loop since the previous call (the first: since the start). */
  utilization: () => number;
  compact: () => void;
}

function eventLoopProbe(): CompactionProbe {
  let last = performance.eventLoopUtilization();
  return {
    committedBytes: () => getHeapStatistics().total_heap_size,
    utilization: () => {
      const now = performance.eventLoopUtilization();
      const { utilization } = performance.eventLoopUtilization(now, last);
      last = now;
      return utilization;
    },
    compact: () => {
      collectGarbage();
      // The collection's own pause is not load.
      last = performance.eventLoopUtilization();
    },
  };
}

/**
 * For a process whose periodic work (data's replay) leaves garbage behind: call the answer after
 * each such run. When the heap has grown by `growthBytes` since the last compaction and the process
 * was idle since the previous call, it runs collectGarbage (a compacting, last-resort collection:
 * ~60-80 ms on a 30 MB heap on a 2-core machine). V8 keeps resident the pages a regular collection
 * empties, so without it an idle process holds the high-water mark of its last burst; a busy one is
 * left to V8, so no request waits on the pause. Answers whether it compacted.
 */
export function idleCompaction(
  policy: CompactionPolicy = IDLE_COMPACTION,
  probe: CompactionProbe = eventLoopProbe(),
): () => boolean {
  let baseline = probe.committedBytes();
  return () => {
    const utilization = probe.utilization();
    if (!compactionDue(probe.committedBytes() - baseline, utilization, policy)) return false;
    probe.compact();
    baseline = probe.committedBytes();
    return true;
  };
}
