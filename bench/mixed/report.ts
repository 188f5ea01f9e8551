/** The tables the mixed bench prints: requests per route, memory and CPU per process. */
import type autocannon from 'autocannon';
import { cpuSeconds, statusOf } from '../support.js';

export interface Line {
  group: string;
  route: string;
  connections: number;
  result: autocannon.Result;
}

const count = (r: autocannon.Result, status: number) =>
  r.statusCodeStats?.[`${status}` as `${number}`]?.count ?? 0;

export function printLines(title: string, lines: Line[], seconds: number): void {
  const head = `${'route'.padEnd(58)} ${'conn'.padStart(4)} ${'requests'.padStart(9)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'429'.padStart(6)} ${'errors'.padStart(6)}`;
  console.log(`\n${title}\n${head}`);
  const row = (
    name: string,
    conns: number,
    requests: number,
    p50: string,
    p99: string,
    non2xx: number,
    r429: number,
    errors: number,
  ) =>
    console.log(
      `${name.padEnd(58)} ${String(conns).padStart(4)} ${String(requests).padStart(9)} ${(requests / seconds).toFixed(1).padStart(8)} ${p50.padStart(7)} ${p99.padStart(7)} ${String(non2xx).padStart(8)} ${String(r429).padStart(6)} ${String(errors).padStart(6)}`,
    );
  const groups = [...new Set(lines.map((l) => l.group))];
  for (const group of groups) {
    const of = lines.filter((l) => l.group === group);
    for (const l of of)
      row(
        `${group} ${l.route}`.slice(0, 58),
        l.connections,
        l.result.requests.total,
        String(l.result.latency.p50),
        String(l.result.latency.p99),
        l.result.non2xx,
        count(l.result, 429),
        l.result.errors,
      );
    if (of.length > 1) total(`${group}, all routes`, of);
  }
  if (groups.length > 1) total('all', lines);

  function total(name: string, of: Line[]): void {
    const sum = (f: (r: autocannon.Result) => number) => of.reduce((s, l) => s + f(l.result), 0);
    row(
      name,
      of.reduce((s, l) => s + l.connections, 0),
      sum((r) => r.requests.total),
      '',
      '',
      sum((r) => r.non2xx),
      sum((r) => count(r, 429)),
      sum((r) => r.errors),
    );
  }
}

export interface Measured {
  name: string;
  pid: number;
  beforeRssMb: number;
  startPeakMb: number;
  cpuBefore: number;
}

export function printMemory(
  measured: Measured[],
  seconds: number,
  others: {
    bench: { cpu: number; rss: number; hwm: number };
    postgres: { count: number; cpu: number };
    answers: number;
  },
): void {
  const mb = (n: number) => n.toFixed(0).padStart(9);
  const blank = ''.padStart(9);
  const cpuCols = (used: number) =>
    `${used.toFixed(1).padStart(6)} ${((used / seconds) * 100).toFixed(0).padStart(6)}`;
  console.log(
    `\nper process, MB (RSS before: after the warm-up; peak: VmHWM during the load, reset just before it; start peak: VmHWM before that reset); CPU during the load, % of one core\n${'process'.padEnd(58)} ${'RSS before'.padStart(9)} ${'peak'.padStart(9)} ${'RSS after'.padStart(9)} ${'start pk'.padStart(9)} ${'CPU s'.padStart(6)} ${'CPU %'.padStart(6)}`,
  );
  let rss = 0;
  let cpu = 0;
  for (const m of measured) {
    const now = statusOf(m.pid);
    const used = cpuSeconds(m.pid) - m.cpuBefore;
    rss += now.rssMb;
    cpu += used;
    console.log(
      `${m.name.slice(0, 58).padEnd(58)} ${mb(m.beforeRssMb)} ${mb(now.hwmMb)} ${mb(now.rssMb)} ${mb(m.startPeakMb)} ${cpuCols(used)}`,
    );
  }
  console.log(
    `${'total of these processes'.padEnd(58)} ${blank} ${blank} ${mb(rss)} ${blank} ${cpuCols(cpu)}`,
  );
  console.log(
    `${`Postgres: the ${others.postgres.count} backends of the run's database`.padEnd(58)} ${blank} ${blank} ${blank} ${blank} ${cpuCols(others.postgres.cpu)}`,
  );
  const { bench } = others;
  console.log(
    `${'bench process (autocannon: the load generator)'.padEnd(58)} ${blank} ${mb(bench.hwm)} ${mb(bench.rss)} ${blank} ${cpuCols(bench.cpu)}`,
  );
  const perAnswer = (c: number) => ((c * 1000) / others.answers).toFixed(2);
  console.log(
    `CPU ms per answer of the mix: these processes ${perAnswer(cpu)}, Postgres ${perAnswer(others.postgres.cpu)}, load generator ${perAnswer(bench.cpu)}`,
  );
}
