import type { ConsumerSpec } from '@meridian/bus';
import { DURABLES, STREAMS, WORK, type CloudEvent } from '@meridian/contracts';
import { z } from 'zod';
import type { AnalysisDeps } from '../deps.js';
import { executeRunJob } from '../flows/execute-run.js';

const jobSchema = z.object({ run_id: z.string().regex(/^run-[0-9a-f-]{36}$/) });

/**
 * The worker: one durable pull consumer (`analysis__run_worker`) on the ANALYSIS_RUNS work queue,
 * shared by every replica with RUN_WORKER on, each pulling one job at a time. The bus heartbeats a
 * job (`working()`) while its handler runs, so only a dead worker's job comes back after
 * RUN_ACK_WAIT_MS. Deliveries are capped a few above RUN_MAX_ATTEMPTS: the attempts themselves are
 * counted in the run's row, and the one past the last fails and refunds the run.
 */
export function runWorkers(deps: AnalysisDeps): ConsumerSpec<never>[] {
  if (!deps.config.RUN_WORKER) return [];
  return [
    {
      stream: STREAMS.analysisRuns.name,
      durable: DURABLES.analysisRunWorker,
      filterSubject: WORK.analysisRunRequested,
      ackWaitMs: deps.config.RUN_ACK_WAIT_MS,
      maxDeliver: deps.config.RUN_MAX_ATTEMPTS + 3,
      backoffMs: [1000, 5000],
      maxMessages: 1,
      handler: async (event: CloudEvent<never>, ctx) => {
        const job = jobSchema.safeParse(event.data);
        if (!job.success) {
          deps.logger.warn({ event_id: event.id }, 'a run job without a run id was dropped');
          return;
        }
        await executeRunJob(deps, job.data.run_id, ctx);
      },
    },
  ];
}
