import { runMain } from '@meridian/runtime';
import { start } from '../../src/main.js';

/**
 * The analysis service as its own process with a pipeline that takes TEST_PIPELINE_MS, so a test
 * can kill it (SIGKILL) in the middle of a run.
 */
const delayMs = Number(process.env.TEST_PIPELINE_MS ?? '60000');

void runMain(() =>
  start(process.env, undefined, {
    pipeline: async (_deps, input, trace) => {
      await trace('scan', 'started', 'a slow scan');
      await new Promise((r) => setTimeout(r, delayMs));
      return {
        run_id: input.run_id,
        domain: input.domain,
        tier: input.tier,
        status: 'succeeded',
        started_at: null,
        finished_at: null,
        score: 100,
        grade: 'A',
        summary: 'slow',
        findings: [],
        changes: null,
        review: null,
      };
    },
  }),
);
