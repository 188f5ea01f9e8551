/** The bench's processes: started, named, and the CPU they and Postgres's backends use. */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '@meridian/db';
import { cpuSeconds, descendants, freePort, launch, NODE_FLAGS, tsx, waitHttp } from '../support.js';
import type { Line } from './report.js';

/** MIXED_DIST=1: the processes run their built dist/main.js, as the images do. */
export const DIST = process.env.MIXED_DIST === '1';

export interface Part {
  name: string;
  child: ChildProcess;
  url: string;
}

export interface Stream {
  group: 'data' | 'portal' | 'x402';
  route: string;
  connections: number;
  options: autocannon.Options;
}

/**
 * Starts the process of `folder` (its src/main.ts through tsx, or with MIXED_DIST=1 its built
 * dist/main.js, as the images run it) and waits for its /ready; `name` is its name in the tables,
 * `flags` node's flags beside NODE_FLAGS (`--cpu-prof`).
 */
export async function start(
  name: string,
  folder: string,
  env: Record<string, string>,
  extra: Record<string, string> = {},
  flags: string[] = [],
): Promise<Part> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Built, the portal serves the pages `pnpm build` bundled (as its image does), not its sources.
  const built: Record<string, string> =
    DIST && name === 'portal' ? { PORTAL_DIST: 'portal/dist/public' } : {};
  const args = [
    ...NODE_FLAGS,
    ...flags,
    ...(DIST ? [join(folder, 'dist', 'main.js')] : tsx(join(folder, 'src', 'main.ts'))),
  ];
  const child = launch(args, { ...env, ...built, ...extra, PORT: String(port) });
  await waitHttp(`${url}/ready`, {}, 600_000).catch((err: Error) => {
    // Not yet a part of the run, so its end would not stop it.
    child.kill('SIGKILL');
    throw new Error(`${name}: ${err.message} (BENCH_VERBOSE=1 shows its stderr)`);
  });
  return { name, child, url };
}

/** Every stream at once for `seconds`; one autocannon instance per route. */
export async function drive(streams: Stream[], seconds: number): Promise<Line[]> {
  const results = await Promise.all(
    streams.map((s) => autocannon({ connections: s.connections, duration: seconds, ...s.options })),
  );
  return streams.map((s, i) => ({
    group: s.group,
    route: s.route,
    connections: s.connections,
    result: results[i]!,
  }));
}

/** A child's name in the tables: the entry it runs (a script's file, or the binary's). */
function entryOf(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const script = args.slice(1).find((a) => /\.(ts|js)$/.test(a)) ?? args[0] ?? '?';
  const name = basename(script);
  return name === 'esbuild' ? 'esbuild (its bundler)' : name;
}

/** Every process of the run, with the children each has (the portal's esbuild, the chain). */
export function processesOf(
  parts: Part[],
  facilitatorPid: number | undefined,
): { name: string; pid: number }[] {
  const out: { name: string; pid: number }[] = [];
  const withChildren = (name: string, pid: number) => {
    out.push({ name, pid });
    for (const d of descendants(pid)) out.push({ name: `  └ ${entryOf(d.pid)}`, pid: d.pid });
  };
  for (const p of parts) withChildren(p.name, p.child.pid!);
  // The LiteSVM chain runs in the facilitator's process.
  if (facilitatorPid !== undefined) withChildren('x402 facilitator (local)', facilitatorPid);
  return out;
}

/** The pids of the Postgres backends connected to the run's database (the services' pools). */
export async function backendsOf(url: string): Promise<number[]> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const { db, close } = openDatabase<any>({ kind: 'pg', url, poolSize: 1 }, 'public');
  try {
    const rows = await db
      .selectFrom('pg_catalog.pg_stat_activity')
      .select('pid')
      .where('datname', '=', new URL(url).pathname.slice(1))
      .execute();
    return rows.map((r: { pid: number }) => Number(r.pid));
  } finally {
    await close();
  }
}

/** CPU seconds of those of `pids` still running (a backend may end meanwhile). */
export const cpuOfLiving = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum;
    }
  }, 0);

/** CPU seconds each group of processes (and this process, `load generator`) uses from now on. */
export function cpuMeter(groups: Record<string, number[]>): () => Record<string, number> {
  const before = Object.fromEntries(Object.entries(groups).map(([n, pids]) => [n, cpuOfLiving(pids)]));
  const self = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(self);
    return {
      ...Object.fromEntries(Object.entries(groups).map(([n, pids]) => [n, cpuOfLiving(pids) - before[n]!])),
      'load generator': (used.user + used.system) / 1e6,
    };
  };
}
