/**
 * Every data route of the mixed bench straight to the data service (`bench data-direct`): the
 * service started as its own process in replay mode (as `pnpm start` and the images run it), on
 * PGlite and on a fresh database of the machine's Postgres, one route at a time after a warm-up,
 * autocannon in a process of its own. Per route: answers/s, p50, p99, CPU of the service per answer,
 * and the ratio to the cached reference price measured in the same run (the house's own ceiling).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@meridian/db/testing';
import { callerHeaders, TEST_INTERNAL_AUTH_SECRET } from '@meridian/http-kit/testing';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** `pglite`, `postgres` or both (unset). */
const ONLY_DB = process.env.BENCH_DB;
/** A folder: the service writes a V8 CPU profile there as it stops. */
const CPU_PROF = process.env.BENCH_CPU_PROF;
const SERVICE_DIR = fileURLToPath(new URL('..', import.meta.url));
const TICK_S = 0.01;

/** The data routes of `bench mixed` (bench/mixed/streams.ts), then two more series of the catalogue. */
const ROUTES = [
  '/v1/data/crypto/spot/reference_price?entity=BTC-USD',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m',
  '/v1/data/crypto/futures/funding?entity=BTC-USD',
  '/v1/data/fx/spot/reference_rate?entity=EUR-USD',
  '/v1/data/weather/observations/temperature?entity=london',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1h',
  '/v1/data/crypto/spot/trades?entity=BTC-USD',
];

interface CannonResult {
  non2xx: number;
  errors: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
}

interface Row {
  route: string;
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerAnswer: number;
  bytes: number;
  failed: number;
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_S;
}

function cannon(url: string, headers: Record<string, string>, seconds: number): Promise<CannonResult> {
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [bin, '-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, url], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as CannonResult);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the data service exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the data service was not ready within 300 s');
}

async function startData(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];
  const child = spawn(
    process.execPath,
    [...prof, '--max-semi-space-size=8', '--conditions=source', '--import', 'tsx', 'src/main.ts'],
    {
      cwd: SERVICE_DIR,
      env: {
        ...process.env,
        MALLOC_ARENA_MAX: '2',
        INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
        INGEST_MODE: 'replay',
        BUS_NAMESPACE: `direct${port}`,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        ...env,
      },
      stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child);
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function measureRoute(url: string, pid: number, route: string): Promise<Row> {
  const headers = await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'bench', key_id: 'b' });
  const check = await fetch(`${url}${route}`, { headers });
  const body = await check.text();
  if (check.status !== 200) throw new Error(`${route} answered ${check.status}: ${body}`);
  await cannon(`${url}${route}`, headers, 2);
  const cpu = cpuSeconds(pid);
  const r = await cannon(`${url}${route}`, headers, DURATION_S);
  const used = cpuSeconds(pid) - cpu;
  return {
    route: route.slice('/v1/data/'.length),
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuMsPerAnswer: (used * 1000) / Math.max(1, r.requests.total),
    bytes: Buffer.byteLength(body),
    failed: r.non2xx + r.errors,
  };
}

function print(db: string, rows: Row[]): void {
  const ref = rows[0]!.rps;
  console.log(`data-direct (${db}, ${CONNECTIONS} connections, ${DURATION_S} s a route):`);
  console.log(
    `  ${'route'.padEnd(52)} ${'answers/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU ms/ans'.padStart(10)} ${'÷ ref'.padStart(6)} ${'KB'.padStart(5)} target`,
  );
  for (const r of rows) {
    const met = r.rps >= 1000 && r.p99 < 20 && r.failed === 0;
    console.log(
      `  ${r.route.padEnd(52)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${r.cpuMsPerAnswer.toFixed(3).padStart(10)} ${(r.rps / ref).toFixed(2).padStart(6)} ${(r.bytes / 1024).toFixed(1).padStart(5)} ${met ? 'met' : 'NOT met'}${r.failed ? ` (${r.failed} failed)` : ''}`,
    );
  }
}

async function runOn(db: string, env: Record<string, string>): Promise<void> {
  const { url, child } = await startData(env);
  try {
    const rows: Row[] = [];
    for (const route of ROUTES) rows.push(await measureRoute(url, child.pid!, route));
    print(db, rows);
  } finally {
    await stop(child);
  }
}

export async function run(): Promise<void> {
  if (ONLY_DB !== 'postgres') {
    const dir = mkdtempSync(join(tmpdir(), 'data-direct-'));
    try {
      await runOn('PGlite', { DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (ONLY_DB !== 'pglite') {
    const test = await createTestDatabase('bench_direct');
    try {
      await runOn('Postgres', { DATABASE_URL: test.url });
    } finally {
      await test.drop();
    }
  }
}
