import { describe, expect, it } from '@jest/globals';
import { startPeriodic } from '../src/periodic.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

// Each run waits for the test to release it, so the outcome does not depend on how fast a loaded
// CI machine fires timers.
function gatedTask() {
  const releases: (() => void)[] = [];
  let active = 0;
  const state = { runs: 0, overlapped: false, active: () => active };
  const task = async () => {
    state.runs += 1;
    active += 1;
    state.overlapped ||= active > 1;
    const run = state.runs;
    await new Promise<void>((r) => releases.push(r));
    active -= 1;
    if (run === 2) throw new Error('second run fails');
  };
  const release = () => releases.shift()?.();
  return { state, task, release };
}

describe('startPeriodic', () => {
  it('runs at once and skips ticks while a run is going instead of queueing them', async () => {
    const { state, task, release } = gatedTask();
    const periodic = startPeriodic(task, 10, () => undefined);
    expect(state.runs).toBe(1);
    await sleep(100);
    expect(state.runs).toBe(1);
    release();
    await until(() => state.runs === 2);
    // Ten ticks fell during the first run; none of them was kept for later.
    await sleep(50);
    expect(state.runs).toBe(2);
    expect(state.overlapped).toBe(false);
    release();
    await periodic.stop();
    release();
  });

  it('survives a failed run and stops after the current run', async () => {
    const { state, task, release } = gatedTask();
    const errors: unknown[] = [];
    const periodic = startPeriodic(task, 10, (err) => errors.push(err));
    release();
    await until(() => state.runs === 2);
    release();
    await until(() => state.runs === 3);
    expect(errors).toHaveLength(1);
    const stopped = periodic.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await sleep(30);
    expect(done).toBe(false);
    release();
    await stopped;
    await sleep(50);
    expect(state.runs).toBe(3);
    expect(state.active()).toBe(0);
  });
});
