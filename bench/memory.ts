/**
 * Resident memory at idle, measured the same way every run:
 *   (1) `pnpm start` (scripts/start.ts, run as its start script runs it) on an embedded PGlite in
 *       a fresh DATA_DIR, once with INGEST_MODE=replay (the default) and once with
 *       INGEST_MODE=off; with replay, again after a first deposit (`deposit:pay`'s payment), which
 *       starts the local chain's process;
 *   (2) every service, the portal, the MCP edge and the gateway as its own process on a fresh
 *       database of the machine's Postgres and a private namespace of its NATS.
 * Each process waits for /ready, idles MEMORY_IDLE_SECONDS (20), and the table shows, for it and
 * each of its descendants on a line of their own, PSS from /proc/<pid>/smaps_rollup (shared pages
 * split between their users, so the figures add up: the total is the tree's), VmRSS and VmHWM
 * (peak) from /proc/<pid>/status, and the V8 heap used from its /metrics
 * (nodejs_heap_size_used_bytes). Children run as `MALLOC_ARENA_MAX=2 node --max-semi-space-size=8
 * --conditions=source --import tsx <entry>`, the way `pnpm start` runs them; MEMORY_DIST=1 runs the
 * split services from their built dist/main.js instead (after `pnpm build`), as the images do.
 *
 *   npx -y pnpm@10 bench memory
 *   MEMORY_HEAPSNAPSHOT=1 npx -y pnpm@10 bench memory   (also writes a heap snapshot of the
 *                                                        all-in-one at idle, path printed)
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payLocalDeposit, readLocalChain } from '@meridian/local-chain';
import { startTestGround } from '@meridian/runtime/testing';
import {
  descendants,
  freePort,
  launch,
  NODE_FLAGS,
  pssOf,
  ROOT,
  statusOf,
  stopAll,
  tsx,
  waitHttp,
} from './support.js';

const IDLE_MS = Number(process.env.MEMORY_IDLE_SECONDS ?? 20) * 1000;
const MB = 1024 * 1024;

interface Row {
  name: string;
  pssMb: number;
  rssMb: number;
  hwmMb: number;
  anonMb: number;
  heapMb?: number;
}

/** The V8 heap in use, from the process's prom-client /metrics. */
async function heapUsedMb(metricsUrl: string): Promise<number | undefined> {
  const text = await fetch(metricsUrl).then(
    (r) => r.text(),
    () => '',
  );
  const m = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([\d.e+]+)$/m.exec(text);
  return m ? Number(m[1]) / MB : undefined;
}

async function rowsOf(name: string, child: ChildProcess, metricsUrl: string): Promise<Row[]> {
  const pid = child.pid!;
  const rows: Row[] = [{ name, pssMb: pssOf(pid), ...statusOf(pid), heapMb: await heapUsedMb(metricsUrl) }];
  for (const d of descendants(pid)) {
    // A child that ended and was not reaped yet has no memory left to count.
    if (!d.cmd) continue;
    rows.push({ name: `  └ ${d.cmd}`, pssMb: pssOf(d.pid), ...statusOf(d.pid) });
  }
  return rows;
}

function print(title: string, rows: Row[]): void {
  const mb = (n?: number) => (n === undefined ? '-' : n.toFixed(0)).padStart(8);
  const head = ['PSS MB', 'RSS MB', 'peak MB', 'anon MB', 'heap MB'].map((h) => h.padStart(8));
  console.log(`\n${title}\n${'process'.padEnd(72)} ${head.join(' ')}`);
  for (const r of rows)
    console.log(
      `${r.name.padEnd(72)} ${mb(r.pssMb)} ${mb(r.rssMb)} ${mb(r.hwmMb)} ${mb(r.anonMb)} ${mb(r.heapMb)}`,
    );
  const top = rows.filter((r) => !r.name.startsWith(' '));
  const sum = (f: (r: Row) => number) => rows.reduce((s, r) => s + f(r), 0);
  console.log(
    `${'total (with children)'.padEnd(72)} ${mb(sum((r) => r.pssMb))} ${mb(sum((r) => r.rssMb))}  (largest top-level process ${mb(Math.max(...top.map((r) => r.pssMb))).trim()} MB PSS)`,
  );
}

const idle = () => new Promise((r) => setTimeout(r, IDLE_MS));

/** The all-in-one on a fresh embedded database; its gateway's /metrics is the whole process's. */
async function allInOne(ingestMode: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
  const port = await freePort();
  const metricsPort = await freePort();
  const snapshot = process.env.MEMORY_HEAPSNAPSHOT ? ['--heapsnapshot-signal=SIGUSR2'] : [];
  const child = launch([...NODE_FLAGS, ...snapshot, ...tsx('scripts/start.ts')], {
    DATA_DIR: dir,
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    INGEST_MODE: ingestMode,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    NATS_URL: '',
    FACILITATOR_URL: '',
    DEPOSIT_ADDRESS: '',
  });
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  try {
    await waitHttp(`http://127.0.0.1:${port}/ready`, {}, 120_000);
    await idle();
    print(
      `pnpm start, INGEST_MODE=${ingestMode}, PGlite + in-process bus, ${IDLE_MS / 1000} s idle`,
      await rowsOf('all-in-one (scripts/start.ts)', child, metricsUrl),
    );
    if (snapshot.length) {
      child.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 15_000));
      const files = readdirSync(ROOT).filter(
        (f) => f.endsWith('.heapsnapshot') && f.includes(String(child.pid)),
      );
      console.log(
        `heap snapshot: ${files.map((f) => join(ROOT, f)).join(', ') || 'none yet (still writing?)'}`,
      );
    }
    if (ingestMode === 'replay') await afterFirstDeposit(dir, child, metricsUrl);
  } finally {
    await stopAll([child]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A first deposit, paid as `deposit:pay` pays it, starts the local chain: the tree again after it. */
async function afterFirstDeposit(dir: string, child: ChildProcess, metricsUrl: string): Promise<void> {
  const chain = readLocalChain(dir);
  if (!chain) return;
  const began = Date.now();
  await payLocalDeposit({
    facilitatorUrl: chain.facilitator_url,
    to: chain.deposit_address,
    memo: 'top-bench',
    amountAtomic: 1_000_000n,
  });
  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  await idle();
  print(
    `pnpm start after its first deposit (paid in ${seconds} s, the local chain's start included), ${IDLE_MS / 1000} s idle`,
    await rowsOf('all-in-one (scripts/start.ts)', child, metricsUrl),
  );
}

/** The entry a split process runs: its main.ts through tsx, or its built dist/main.js. */
function entryArgs(folder: string): string[] {
  if (process.env.MEMORY_DIST) return [...NODE_FLAGS, join(folder, 'dist', 'main.js')];
  return [...NODE_FLAGS, ...tsx(join(folder, 'src', 'main.ts'))];
}

/** Every part as its own process, as in production. */
async function split(): Promise<void> {
  const ground = await startTestGround('bench_memory');
  const dir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
  const env: Record<string, string> = {
    ...ground.env,
    DATABASE_POOL_SIZE: '3',
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: dir,
    X402_FEE_PAYER: 'FeePayer1111111111111111111111111111111111',
  };
  const services = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'];
  const parts = [
    ...services.map((name) => ({ name, folder: `services/${name}` })),
    { name: 'portal', folder: 'portal' },
    { name: 'mcp', folder: 'mcp' },
  ];
  const running: { name: string; child: ChildProcess; url: string; metrics: string }[] = [];
  try {
    // One after the other, so a start's peak is its own and not four compilers at once.
    for (const part of parts) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      // Built, the portal serves the pages `pnpm build` bundled (as its image does), not its sources.
      const pages: Record<string, string> =
        process.env.MEMORY_DIST && part.name === 'portal' ? { PORTAL_DIST: 'portal/dist/public' } : {};
      const child = launch(entryArgs(part.folder), { ...env, ...pages, PORT: String(port) });
      running.push({ name: part.name, child, url, metrics: `${url}/metrics` });
      await waitHttp(`${url}/ready`, {}, 120_000).catch((err: Error) => {
        throw new Error(`${part.name}: ${err.message} (BENCH_VERBOSE=1 shows its stderr)`);
      });
    }
    const urls = Object.fromEntries(running.map((r) => [`${r.name.toUpperCase()}_URL`, r.url]));
    const port = await freePort();
    const metricsPort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const gateway = launch(entryArgs('gateway'), {
      ...env,
      ...urls,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
    });
    running.push({
      name: 'gateway',
      child: gateway,
      url,
      metrics: `http://127.0.0.1:${metricsPort}/metrics`,
    });
    await waitHttp(`${url}/ready`, {}, 120_000);
    await idle();
    const rows: Row[] = [];
    for (const r of running) rows.push(...(await rowsOf(r.name, r.child, r.metrics)));
    print(
      `split (${process.env.MEMORY_DIST ? 'dist/main.js' : 'tsx'}), Postgres + NATS, ${IDLE_MS / 1000} s idle after the last was ready`,
      rows,
    );
  } finally {
    await stopAll(running.map((r) => r.child));
    await ground.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  console.log(`node ${process.version}, ${spawnSync('nproc').stdout.toString().trim()} cores`);
  const only = process.env.MEMORY_ONLY; // all-in-one | split
  if (only !== 'split') {
    await allInOne('replay');
    await allInOne('off');
  }
  if (only !== 'all-in-one') await split();
}

if (import.meta.url === `file://${process.argv[1]}`) await run().then(() => process.exit(0));
