import type { AnalysisDeps } from '../deps.js';

/** On Postgres, this replica LISTENs for the trace notices of every replica's writers. */
export function startTraceNotices(deps: AnalysisDeps): () => Promise<void> {
  const url = deps.config.DATABASE_URL;
  if (!url) return async () => {};
  const listening = deps.traces.listen(url, deps.logger);
  return async () => {
    await listening.catch(() => undefined);
    await deps.traces.close();
  };
}
