/**
 * The load side of the gateway bench (proxy.ts): wrk runs against each row, the rows taking turns,
 * the CPU of the measured processes from /proc, nginx's configuration and the cores each process
 * is pinned to.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Each row's SECONDS are measured in this many runs, the rows taking turns (see measureAll). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TICK_US = 1_000_000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
/**
 * Each measured proxy runs alone on the last core, the load (wrk), the upstream, identity and
 * Redis on the others: a row's figures then depend on its own CPU per request, not on where the
 * scheduler happened to put it beside wrk and the upstream (unpinned, the same build read 0.83-1.34
 * × the raw proxy from run to run on 2 cores).
 */
const CPUS = cpus().length;
export const MEASURED_CPU = String(CPUS - 1);
export const LOAD_CPUS = CPUS > 1 ? `0-${CPUS - 2}` : '0';

export function pin(cpu: string, pids: number[]): void {
  for (const pid of pids) spawnSync('taskset', ['-a', '-pc', cpu, String(pid)]);
}

export interface Row {
  name: string;
  rps: number;
  /** Medians over the rounds, ms. */
  p50: number;
  p99: number;
  cpuUs: number;
  /** requests/s of each round. */
  rounds: number[];
}

/** A row to measure: its URL, the processes whose CPU it counts, the fields wrk sends. */
export interface Target {
  name: string;
  url: string;
  pids: number[];
  headers?: Record<string, string>;
}

/** utime + stime of the processes, in µs, from /proc. */
function cpuUs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_US;
}

/** Asynchronous, so the bench's own NATS client keeps answering during the run. */
async function wrk(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<{ rps: number; requests: number; p50: number; p99: number }> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const child = spawn('taskset', ['-c', LOAD_CPUS, 'wrk', ...args, url]);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} answers were not 2xx:\n${out}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    requests,
    p50: ms(/^\s*50%\s+(\S+)/m.exec(out)?.[1]),
    p99: ms(/^\s*99%\s+(\S+)/m.exec(out)?.[1]),
  };
}

/** wrk's latency ("850.00us", "1.38ms", "1.02s") in ms. */
function ms(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  if (!match) return NaN;
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Every row after its warm-up, then ROUNDS runs of SECONDS / ROUNDS each, the rows taking turns
 * (a b c d … a b c d …): a load that comes and goes on the shared machine falls on every row
 * alike, rather than on whichever row ran then. requests/s is the rounds' requests over their
 * time; CPU per request the rounds' CPU over their requests.
 */
export async function measureAll(targets: Target[]): Promise<Row[]> {
  const seconds = Math.max(1, Math.round(SECONDS / ROUNDS));
  for (const t of targets) {
    await fetch(t.url, { headers: t.headers ?? {} }); // the first call fills the key cache
    await wrk(t.url, t.headers ?? {}, seconds); // warm-up: JIT, keep-alive pools
  }
  const runs = targets.map(() => ({
    requests: 0,
    cpu: 0,
    p50: [] as number[],
    p99: [] as number[],
    rps: [] as number[],
  }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const before = cpuUs(t.pids);
      const run = await wrk(t.url, t.headers ?? {}, seconds);
      const r = runs[i]!;
      r.cpu += cpuUs(t.pids) - before;
      r.requests += run.requests;
      r.rps.push(run.rps);
      r.p50.push(run.p50);
      r.p99.push(run.p99);
    }
  }
  return targets.map((t, i) => {
    const r = runs[i]!;
    const row: Row = {
      name: t.name,
      rps: r.rps.reduce((sum, x) => sum + x, 0) / r.rps.length,
      p50: median(r.p50),
      p99: median(r.p99),
      cpuUs: r.cpu / r.requests,
      rounds: r.rps,
    };
    const latency = (x: number) => `${x.toFixed(2)}ms`.padStart(9);
    console.log(
      `${row.name.padEnd(38)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${latency(row.p50)}  p99 ${latency(row.p99)}  ${row.cpuUs.toFixed(1).padStart(6)} µs CPU/req`,
    );
    return row;
  });
}

export function nginxConf(dir: string, port: number, upstreamPort: number): string {
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  upstream tiny { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://tiny; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  return conf;
}

export function nginxPids(dir: string): number[] {
  const master = Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim());
  const children = spawnSync('pgrep', ['-P', String(master)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  return [master, ...children.map(Number)];
}

/** The target: the full path at least as fast as the raw proxy (b) of the same run. */
export function verdict(name: string, d: Row, b: Row): string {
  const ratio = d.rps / b.rps;
  const rounds = d.rounds.map((rps, i) => (rps / b.rounds[i]!).toFixed(2)).join(' ');
  return `${name}: d/b ${ratio.toFixed(2)} ${ratio >= 1 ? '≥ 1.0: met' : '< 1.0: NOT met'} (rounds ${rounds}; CPU/req ${(d.cpuUs / b.cpuUs).toFixed(2)} × (b))`;
}

/** CPU per request of the gateway beside nginx's and the raw proxy's, from the same run. */
export function cpuBeside(d: Row, dr: Row, b: Row, c: Row): string {
  const us = (row: Row) => `${row.cpuUs.toFixed(1)} µs`;
  return (
    `CPU per request: gateway ${us(d)} (memory buckets), ${us(dr)} (Redis buckets);` +
    ` nginx ${us(c)}; raw node:http proxy ${us(b)};` +
    ` gateway/nginx ${(d.cpuUs / c.cpuUs).toFixed(1)} × (Redis ${(dr.cpuUs / c.cpuUs).toFixed(1)} ×)`
  );
}
