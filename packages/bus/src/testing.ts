import { randomUUID } from 'node:crypto';
import type { Metrics } from '@meridian/observability';
import { connect } from 'nats';
import { sleep } from './codec.js';
import type { Bus } from './types.js';

export interface BusUnderTest {
  bus: Bus;
  /** A second bus on the same system, standing for another replica; the suite closes it. */
  peer?: () => Promise<Bus>;
  /** The metrics given to `bus`, to check that dead letters are counted. */
  metrics?: Metrics;
  cleanup: () => Promise<void>;
}

/** A short name unique to one test, usable in subjects and stream names. */
export function uniqueName(prefix = 'x'): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 20, what = 'condition' } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Deletes every stream of a test namespace (see `namespace` of createNatsBus). */
export async function deleteNatsNamespace(url: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: url, name: `cleanup-${namespace}` });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase()}_`;
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}
