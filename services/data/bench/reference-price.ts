/**
 * reference_price answers per second and p99 on the service (HTTP, in-process server, autocannon),
 * beside the same server with the reference-price cache off (every answer recomputed in SQL).
 */
import { catalogFor } from '@meridian/contracts';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { startServer } from '@meridian/http-kit';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createApp } from '../src/app.js';
import { ingest } from '../src/flows/ingest.js';
import { loadRecordedBars, RECORDED_MARKETS } from '../src/adapters/parsers/spot/recorded-market.js';
import { benchDatabase, benchDeps, dropBench, type BenchDb } from './support.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 32;
const PATH = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';

async function load(db: BenchDb): Promise<void> {
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const end = Date.parse('2023-03-11T06:00:00Z');
  for (const m of RECORDED_MARKETS) {
    const rows = loadRecordedBars(m)
      .filter((b) => b.ts > end - 26 * 3_600_000 && b.ts <= end)
      .map((b) => ({ ...b, ts: new Date(b.ts - end + now).toISOString() }));
    await ingest(
      db.db,
      { kind: 'candles', source: m.venue, symbol: m.symbol, interval: '1m', rows },
      catalogFor('replay'),
    );
  }
}

async function measure(db: BenchDb, env: Record<string, string>, path = PATH) {
  const server = await startServer(createApp(benchDeps(db, env)), { port: 0 });
  try {
    const headers = await callerHeaders({
      plan: 'free',
      auth: 'api_key',
      account_id: 'bench',
      key_id: 'bench',
    });
    const check = await fetch(`${server.url}${path}`, { headers });
    if (check.status !== 200) throw new Error(`${path} answered ${check.status}`);
    const result = await loadFromOtherProcess(`${server.url}${path}`, headers);
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p99: result.latency.p99 };
  } finally {
    await server.close();
  }
}

interface CannonResult {
  non2xx: number;
  errors: number;
  requests: { average: number };
  latency: { p99: number };
}

/** autocannon in its own process, so that the load generator does not share the server's event loop. */
function loadFromOtherProcess(url: string, headers: Record<string, string>): Promise<CannonResult> {
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [bin, '-j', '-c', String(CONNECTIONS), '-d', String(DURATION_S)];
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

export async function run(): Promise<void> {
  const db = await benchDatabase('bench_refprice');
  try {
    await load(db);
    const baseline = await measure(db, { DATA_PRICE_CACHE_MS: '0' });
    const service = await measure(db, {});
    // The same app's /health: what this machine and the HTTP chassis (helmet, trace, metrics) allow at most.
    const ceiling = await measure(db, {}, '/health');
    console.log(
      `data-reference-price: baseline (recomputed per request) ${baseline.rps.toFixed(0)} answers/s, p99 ${baseline.p99} ms`,
    );
    console.log(
      `data-reference-price: service (cached, cleared on ingest) ${service.rps.toFixed(0)} answers/s, p99 ${service.p99} ms`,
    );
    console.log(
      `data-reference-price: chassis ceiling (GET /health, same app) ${ceiling.rps.toFixed(0)} answers/s, p99 ${ceiling.p99} ms`,
    );
    console.log(
      `data-reference-price: ${(service.rps / baseline.rps).toFixed(1)}x the baseline, ${((service.rps / ceiling.rps) * 100).toFixed(0)} % of the ceiling; target >= 10,000 answers/s: ${service.rps >= 10_000 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await dropBench(db);
  }
}
