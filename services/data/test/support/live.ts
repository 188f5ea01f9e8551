import type { LiveIngestSettings } from '../../src/jobs/live-ingest.js';

/** Settings of the live connectors for a test: short timeouts and backoff, then the test's own. */
export function liveSettings(over: Partial<LiveIngestSettings> = {}): LiveIngestSettings {
  return {
    urls: {},
    everyMs: {},
    only: [],
    keys: {},
    timeoutMs: 2000,
    maxBackoffMs: 200,
    ...over,
  };
}

/** Reads until `ok` holds (a connector polls on its own timer), failing with the last value read. */
export async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
