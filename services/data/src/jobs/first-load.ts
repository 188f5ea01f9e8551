/** Seconds a caller is told to wait while the first load runs (it takes a few seconds on a fresh start). */
export const FIRST_LOAD_RETRY_AFTER_S = 5;

/**
 * The replay's first load after start (the market bars of the last 48 h and every recorded feed):
 * until it has run, a metric with no data yet is loading, not missing (503 with Retry-After, never
 * 404), and `/ready` says not ready. Without replay there is nothing to wait for.
 */
export interface FirstLoad {
  loading(): boolean;
  /** The first load has run (or failed, and was logged): answers say what is stored from now on. */
  settle(): void;
  /** For `/ready`: throws while the first load runs. */
  ready(): Promise<void>;
}

export function createFirstLoad(pending: boolean): FirstLoad {
  let loading = pending;
  return {
    loading: () => loading,
    settle: () => void (loading = false),
    ready: async () => {
      if (loading) throw new Error('the first load of the recorded data is still running');
    },
  };
}
