import { startPeriodic } from '@meridian/runtime';
import type { AnalysisDeps } from '../deps.js';
import { runDueRescans } from '../flows/rescan.js';

/** Starts due weekly re-scans every RESCAN_POLL_MS; every replica runs it, each week is taken once. */
export function startRescans(deps: AnalysisDeps): () => Promise<void> {
  const periodic = startPeriodic(
    async () => {
      const started = await runDueRescans(deps);
      if (started > 0) deps.logger.info({ started }, 'weekly re-scans started');
    },
    deps.config.RESCAN_POLL_MS,
    (err) => deps.logger.error({ err }, 'starting re-scans failed'),
  );
  return () => periodic.stop();
}
