/**
 * The plumbing every benchmark shares: timing, free ports, child processes and waiting for them,
 * and what /proc says of a process (memory, CPU, children).
 * Nothing here knows a service; each service's benches live in its own bench/ folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
    env: { ...process.env, ...START_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (c: Buffer) => process.env.BENCH_VERBOSE && process.stderr.write(c));
  return child;
}

/** node arguments that run a TypeScript entry of the repository. */
/** The V8 flags `pnpm start` (package.json) and the images (deploy/Dockerfile) run with. */
export const NODE_FLAGS = ['--max-semi-space-size=8'];
/**
 * The environment `pnpm start` and the images set for the allocator: glibc reads it when a
 * process starts, so every child of a bench gets it too.
 */
const START_ENV = { MALLOC_ARENA_MAX: '2' };

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

/**
 * VmRSS, VmHWM (peak) and RssAnon of one process, in MB. RssAnon is the process's own memory; the
 * rest of VmRSS is mostly file pages, ~85 MB of them node's own binary, shared with every other
 * node process of the machine.
 */
export function statusOf(pid: number): { rssMb: number; hwmMb: number; anonMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024, anonMb: kb('RssAnon') / 1024 };
}

/**
 * PSS of one process in MB (/proc/<pid>/smaps_rollup): its own pages plus its share of those it
 * shares (node's binary with every other node process), so the PSS of processes add up.
 */
export function pssOf(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
}

/**
 * Every descendant of `pid`, with its command line: the program's name and its arguments other
 * than flags (`node packages/local-chain/src/chain-process.ts`), the repository's path left out,
 * cut at 70; empty for one that ended and was not reaped yet.
 */
export function descendants(pid: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const file = `/proc/${pid}/task/${tid}/children`;
    if (!existsSync(file)) continue;
    for (const child of readFileSync(file, 'utf8').split(' ').filter(Boolean).map(Number)) {
      const [program = '', ...args] = readFileSync(`/proc/${child}/cmdline`, 'utf8')
        .split('\0')
        .filter(Boolean);
      const operands = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--import');
      out.push({
        pid: child,
        cmd: [basename(program), ...operands]
          .filter(Boolean)
          .map((a) => a.replace(`${ROOT}/`, ''))
          .join(' ')
          .slice(0, 70),
      });
      out.push(...descendants(child));
    }
  }
  return out;
}

/** Sets VmHWM back to the current VmRSS (Linux's clear_refs 5), so the next peak is of what follows. */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const TICK_S = 1 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);

/** CPU time (user + system) the process has used, in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_S;
}

/** SIGTERM to each, so they drain as in production; SIGKILL to one still running 10 s later. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
          c.once('exit', () => (clearTimeout(timer), resolve()));
          c.kill('SIGTERM');
        }),
    ),
  );
}
