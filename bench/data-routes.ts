/**
 * Every data route of the mix (and a series page), one at a time, straight to the data service and
 * through the gateway, each figure beside its peer: answers/s, p50/p99 and the CPU per answer of each
 * process, and the ratio gateway / direct. The processes are the ones a data call by API key needs,
 * each its own process as deployed (bench/mixed's start): identity (the key), billing (the ultra plan
 * the account buys), data and the gateway. Identity and billing use a fresh database of the machine's
 * Postgres; the data service uses an embedded PGlite of its own (DATA_ROUTES_DB=postgres: the same
 * Postgres database). The gateway's buckets are in Redis (DATA_ROUTES_LIMITER=memory: in memory),
 * with RATE_LIMITS lifting ultra's limit above the load.
 *
 * Each route is driven by autocannon in this process with BENCH_CONNECTIONS (10) connections for
 * BENCH_SECONDS (5) through the gateway, then as long straight to the data service (a caller assertion
 * signed with the run's INTERNAL_AUTH_SECRET, as the gateway signs it), after a 1 s warm-up of each,
 * BENCH_ROUNDS (2) times with the two sides taking turns first. Every figure is of a fixed duration
 * and concurrency, loopback only.
 *
 *   npx -y pnpm@10 bench data-routes
 *   DATA_ROUTES_DB=postgres BENCH_SECONDS=10 npx -y pnpm@10 bench data-routes
 *
 * Needs the machine's Postgres, NATS (JetStream) and Redis. BENCH_VERBOSE=1 shows the children's
 * logs; MIXED_DIST=1 runs the processes from dist/ (after `pnpm build`); DATA_ROUTES_ONLY=<text>
 * measures only the routes containing it; DATA_ROUTES_CPU_PROF=<dir> has the gateway write a V8
 * CPU profile there as it stops.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { TEST_NATS_URL, startTestGround, type TestGround } from '@meridian/runtime/testing';
import { startSmtp } from '@meridian/test-peers';
import { prepareAccount } from './mixed/account.js';
import { renewedAssertion, ultraKeyCaller } from './mixed/assertion.js';
import { backendsOf, cpuMeter, DIST, drive, start, type Part, type Stream } from './mixed/processes.js';
import { DATA_ROUTES, dataStreams, directStreams } from './mixed/streams.js';
import { stopAll } from './support.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ON_POSTGRES = process.env.DATA_ROUTES_DB === 'postgres';
const REDIS_BUCKETS = process.env.DATA_ROUTES_LIMITER !== 'memory';
/** Only the routes whose path contains this (`reference_price`); unset: every route. */
const ONLY = process.env.DATA_ROUTES_ONLY;
/** A folder where the gateway writes a V8 CPU profile as it stops. */
const CPU_PROF = process.env.DATA_ROUTES_CPU_PROF;
/** The series read whose next page the bench asks for: the first page is the mix's ohlcv route. */
const SERIES_FIRST_PAGE = '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m';

interface Run {
  ground: TestGround;
  dirs: string[];
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  secret: string;
  parts: Part[];
}

/** One side of one route: its answers, latency and the CPU each process spent per answer. */
interface Side {
  answers: number;
  non2xx: number;
  /** Requests autocannon gave up on after its 10 s timeout: an answer slower than that. */
  timeouts: number;
  p50: number;
  p99: number;
  cpu: Record<string, number>;
}

/**
 * identity, billing and data one at a time, then two gateways in front of them: the gateway as
 * configured (keeping data answers), and one keeping none (DATA_EDGE_CACHE_MS=0: every call hops).
 */
async function startSystem(run: Run): Promise<{ gateway: Part; forwarding: Part }> {
  const dir = mkdtempSync(join(tmpdir(), 'data-routes-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'data-routes-pglite-'));
  run.dirs.push(dir, dataDir);
  const env: Record<string, string> = {
    DATABASE_URL: run.ground.databaseUrl,
    NATS_URL: TEST_NATS_URL,
    BUS_NAMESPACE: run.ground.namespace,
    INTERNAL_AUTH_SECRET: run.secret,
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    SMTP_URL: run.smtp.url,
    RATE_LIMITS: 'ultra=100000000',
  };
  for (const name of ['identity', 'billing'] as const)
    run.parts.push(await start(name, `services/${name}`, env));
  // Without DATABASE_URL a split service opens the embedded PGlite under its DATA_DIR.
  const dataEnv = ON_POSTGRES ? env : { ...env, DATABASE_URL: '', DATA_DIR: dataDir };
  run.parts.push(await start('data', 'services/data', dataEnv));
  const urls = Object.fromEntries(run.parts.map((p) => [`${p.name.toUpperCase()}_URL`, p.url]));
  const gatewayEnv = {
    ...urls,
    METRICS_PORT: '0',
    ...(REDIS_BUCKETS ? { REDIS_URL, RATE_LIMIT_PREFIX: `bench:${run.ground.namespace}:` } : {}),
  };
  const flags = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];
  const gateway = await start('gateway', 'gateway', env, gatewayEnv, flags);
  run.parts.push(gateway);
  const forwarding = await start(
    'gateway',
    'gateway',
    env,
    { ...gatewayEnv, DATA_EDGE_CACHE_MS: '0' },
    flags,
  );
  run.parts.push({ ...forwarding, name: 'gateway-hop' });
  return { gateway, forwarding };
}

/** Waits out the replay's first load (503 until it is in) and answers the series' second page. */
async function routesAnswering(gateway: string, headers: Record<string, string>): Promise<string[]> {
  for (const route of [...DATA_ROUTES, SERIES_FIRST_PAGE]) {
    const until = Date.now() + 300_000;
    for (;;) {
      const res = await fetch(`${gateway}${route}`, { headers });
      if (res.status === 200) break;
      if (res.status !== 503 || Date.now() > until)
        throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const first = await fetch(`${gateway}${SERIES_FIRST_PAGE}`, { headers });
  const { meta } = (await first.json()) as { meta: { next_cursor?: string | null } };
  if (!meta.next_cursor) throw new Error(`${SERIES_FIRST_PAGE} has no next page`);
  const next = `${SERIES_FIRST_PAGE}&cursor=${encodeURIComponent(meta.next_cursor)}`;
  const res = await fetch(`${gateway}${next}`, { headers });
  if (res.status !== 200) throw new Error(`the series' next page answered ${res.status}`);
  return [...DATA_ROUTES, next].filter((r) => ONLY === undefined || r.includes(ONLY));
}

/** One stream for `seconds`: its side's figures, the CPU per answer of each of `pids`' groups. */
async function measure(stream: Stream, pids: Record<string, number[]>): Promise<Side> {
  const meter = cpuMeter(pids);
  const [line] = await drive([stream], SECONDS);
  const used = meter();
  const r: autocannon.Result = line!.result;
  const answers = r.requests.total;
  return {
    answers,
    non2xx: r.non2xx + r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: Object.fromEntries(Object.entries(used).map(([n, s]) => [n, (s * 1000) / Math.max(1, answers)])),
  };
}

/** The rounds of one side added up; latency: the worst round's. */
function sum(sides: Side[]): Side {
  const answers = sides.reduce((s, x) => s + x.answers, 0);
  const cpu: Record<string, number> = {};
  for (const x of sides)
    for (const [n, ms] of Object.entries(x.cpu)) cpu[n] = (cpu[n] ?? 0) + (ms * x.answers) / answers;
  return {
    answers,
    non2xx: sides.reduce((s, x) => s + x.non2xx, 0),
    timeouts: sides.reduce((s, x) => s + x.timeouts, 0),
    p50: Math.max(...sides.map((x) => x.p50)),
    p99: Math.max(...sides.map((x) => x.p99)),
    cpu,
  };
}

const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .filter(([, ms]) => ms >= 0.005)
    .map(([n, ms]) => `${n} ${ms.toFixed(2)}`)
    .join(', ');

/** The throughput ratio; none when a side got no answer in time. */
const ratio = (via: Side, direct: Side) =>
  via.answers === 0 || direct.answers === 0
    ? 'none (a side got no answer)'
    : (via.answers / direct.answers).toFixed(2);

function printRoute(route: string, via: Side, hop: Side, direct: Side): void {
  const rps = (s: Side) => (s.answers / (SECONDS * ROUNDS)).toFixed(0);
  const line = (name: string, s: Side) =>
    `  ${name.padEnd(12)} ${rps(s).padStart(7)}/s  p50 ${s.p50} ms  p99 ${s.p99} ms  non-2xx ${s.non2xx}  timeouts ${s.timeouts}  CPU ms/answer: ${fmtCpu(s.cpu)}\n`;
  console.log(
    `\n${route.slice('/v1/data/'.length, 100)}\n` +
      line('direct', direct) +
      line('gateway', via) +
      line('gateway hop', hop) +
      `  gateway / direct ${ratio(via, direct)}; every call hopping (DATA_EDGE_CACHE_MS=0) / direct ${ratio(hop, direct)}`,
  );
}

/** Every route, through the gateway and straight, the sides taking turns first; a summary. */
async function measureRoutes(
  run: Run,
  gateways: { gateway: Part; forwarding: Part },
  routes: string[],
  keyHeaders: Record<string, string>,
  assertion: () => string,
): Promise<void> {
  const data = run.parts.find((p) => p.name === 'data')!;
  const pids = Object.fromEntries(run.parts.map((p) => [p.name, [p.child.pid!]]));
  pids.Postgres = await backendsOf(run.ground.databaseUrl);
  const summary: string[] = [];
  for (const route of routes) {
    // The gateway, the gateway keeping nothing, and the data service: each round starts one later.
    const streams = [
      dataStreams(gateways.gateway.url, () => keyHeaders, [route], CONNECTIONS)[0]!,
      dataStreams(gateways.forwarding.url, () => keyHeaders, [route], CONNECTIONS)[0]!,
      directStreams(data.url, assertion, [route], CONNECTIONS)[0]!,
    ];
    for (const stream of streams) await drive([stream], 1);
    const sides: Side[][] = [[], [], []];
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < streams.length; i++) {
        const at = (i + round) % streams.length;
        sides[at]!.push(await measure(streams[at]!, pids));
      }
    const [v, h, d] = sides.map(sum) as [Side, Side, Side];
    printRoute(route, v, h, d);
    summary.push(
      `  ${route.slice('/v1/data/'.length, 60).padEnd(60)} ${ratio(v, d).padStart(5)}  ${ratio(h, d)}`,
    );
  }
  console.log(
    `\nanswers/s over direct, same run: through the gateway, and every call hopping (DATA_EDGE_CACHE_MS=0):\n${summary.join('\n')}`,
  );
}

export async function run(): Promise<void> {
  const state: Run = {
    ground: await startTestGround('bench_data_routes'),
    dirs: [],
    smtp: await startSmtp(),
    secret: randomBytes(32).toString('hex'),
    parts: [],
  };
  try {
    const gateways = await startSystem(state);
    const gateway = gateways.gateway;
    const account = await prepareAccount(
      gateway.url,
      state.smtp,
      {
        DATABASE_URL: state.ground.databaseUrl,
        NATS_URL: TEST_NATS_URL,
        BUS_NAMESPACE: state.ground.namespace,
      },
      false,
    );
    const keyHeaders = { 'x-api-key': account.keys[0]!.key };
    const routes = await routesAnswering(gateway.url, keyHeaders);
    const assertion = await renewedAssertion(
      state.secret,
      ultraKeyCaller(account.accountId, account.keys[0]!.id),
    );
    console.log(
      `data-routes: node ${process.version} (${DIST ? 'dist/main.js' : 'tsx'}); data on ${ON_POSTGRES ? 'Postgres' : 'PGlite'}, buckets in ${REDIS_BUCKETS ? 'Redis' : 'memory'}; ${CONNECTIONS} connections, ${SECONDS} s a side, ${ROUNDS} round(s); load average ${loadavg()[0]!.toFixed(1)}, ${cpus().length} cores`,
    );
    try {
      await measureRoutes(state, gateways, routes, keyHeaders, assertion.current);
    } finally {
      assertion.stop();
    }
    console.log(`load average after: ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await stopAll(state.parts.map((p) => p.child));
    await state.smtp.close();
    await state.ground.close();
    for (const dir of state.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run().then(() => process.exit(0));
