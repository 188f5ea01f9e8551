/**
 * The plumbing every benchmark shares: timing, free ports, child processes and waiting for them.
 * Nothing here knows a service; each service's benches live in its own bench/ folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: children start here, so their entry paths are the repository's. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function timeIt(
  runs: number,
  fn: () => Promise<unknown>,
): Promise<{ median: number; p90: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, p90: times[Math.floor(runs * 0.9)]! };
}

/** The same free-port probe the tests use. */
export { freePort } from '@meridian/test-peers';

/** A child process at the repository root; BENCH_VERBOSE=1 passes its stderr through. */
export function launch(args: string[], env: Record<string, string>, cmd = process.execPath): ChildProcess {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (c: Buffer) => process.env.BENCH_VERBOSE && process.stderr.write(c));
  return child;
}

/** node arguments that run a TypeScript entry of the repository. */
export const tsx = (entry: string) => ['--conditions=source', '--import', 'tsx', entry];

/** Resolves once `url` answers below 500. */
export async function waitHttp(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (
      await fetch(url, { headers }).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}
