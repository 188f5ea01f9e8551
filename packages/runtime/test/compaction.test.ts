import { describe, expect, it } from '@jest/globals';
import { getHeapStatistics } from 'node:v8';
import { compactionDue, idleCompaction, IDLE_COMPACTION, type CompactionProbe } from '../src/compaction.js';

const MB = 1024 * 1024;

describe('compactionDue', () => {
  it('wants both the growth and the idleness', () => {
    expect(compactionDue(4 * MB, 0.02, IDLE_COMPACTION)).toBe(true);
    expect(compactionDue(4 * MB - 1, 0.02, IDLE_COMPACTION)).toBe(false);
    expect(compactionDue(40 * MB, 0.11, IDLE_COMPACTION)).toBe(false);
    expect(compactionDue(40 * MB, 0.1, IDLE_COMPACTION)).toBe(true);
  });
});

/** A heap and an event loop the test moves by hand. */
function scriptedProbe() {
  const state = { committed: 30 * MB, utilization: 0, compactions: 0 };
  const probe: CompactionProbe = {
    committedBytes: () => state.committed,
    utilization: () => state.utilization,
    compact: () => {
      state.compactions += 1;
      state.committed = 29 * MB;
    },
  };
  return { state, probe };
}

describe('idleCompaction', () => {
  it('compacts a grown heap when idle, not when busy, and measures growth from the last compaction', () => {
    const { state, probe } = scriptedProbe();
    const afterBurst = idleCompaction(IDLE_COMPACTION, probe);
    state.committed = 33 * MB;
    expect(afterBurst()).toBe(false);
    state.committed = 35 * MB;
    state.utilization = 0.4;
    expect(afterBurst()).toBe(false);
    state.utilization = 0.03;
    expect(afterBurst()).toBe(true);
    expect(state.compactions).toBe(1);
    // From the compacted 29 MB: 32 MB is 3 MB of growth, not enough.
    state.committed = 32 * MB;
    expect(afterBurst()).toBe(false);
    state.committed = 33 * MB;
    expect(afterBurst()).toBe(true);
    expect(state.compactions).toBe(2);
  });

  it("gives back the pages of a burst's promoted garbage in this process", async () => {
    // The jest worker's heap may hold free pages from earlier test files, which the burst would
    // fill without growing: start from a compacted heap, so the burst's growth is its own.
    idleCompaction({ growthBytes: 0, maxUtilization: 1 })();
    const afterBurst = idleCompaction({ growthBytes: 4 * MB, maxUtilization: 1 });
    // Objects that live through several young collections reach the old generation, then die.
    const kept: { i: number; s: string }[][] = [];
    for (let round = 0; round < 8; round++) {
      kept.push(Array.from({ length: 40_000 }, (_, i) => ({ i, s: `row ${round} ${i}` })));
      await new Promise((r) => setImmediate(r));
    }
    expect(kept.length).toBe(8);
    kept.length = 0;
    const before = getHeapStatistics().total_heap_size;
    expect(afterBurst()).toBe(true);
    expect(getHeapStatistics().total_heap_size).toBeLessThan(before - 4 * MB);
  });
});
