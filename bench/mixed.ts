/**
 * A mixed load on the split system: every service, the
 * portal and the gateway each in its own process on a fresh database of the machine's Postgres and
 * a private NATS namespace, the local x402 facilitator and its LiteSVM chain for pay per call, and
 * autocannon (in this process, one instance per route, all at once) driving for BENCH_SECONDS:
 *   - data reads with API keys (two keys of an account on the ultra plan, bought from credit
 *     the operators' `billing:admin grant` gave; RATE_LIMITS lifts ultra's limit so the run
 *     measures throughput, and any 429 is counted apart), over five metric routes;
 *   - portal reads with the same account's session through the gateway: the account page, the
 *     billing history, the reports list of a domain, and the portal's web page itself;
 *   - pay per call: keyless reads each carrying a fresh payment signed by x402's own client
 *     (`ExactSvmScheme`) before the load, a pool used once each, at MIXED_X402_RATE a second.
 * It prints per route the requests, throughput, p50 and p99 (autocannon's, whole ms) and the
 * answers that were not 2xx (429s apart), the totals, then per process the RSS before the load,
 * the peak during it (VmHWM, reset with clear_refs just before the load), the RSS after it, the
 * peak of its start and the CPU it used during the load, beside the CPU of the Postgres backends
 * of the run's database and of the bench process (the load generator shares the machine's cores),
 * and the machine's load average (other work on it shows there). Last, the data routes alone for
 * half as long, through the gateway and then straight to the data service (a caller assertion
 * signed with the run's INTERNAL_AUTH_SECRET, as the gateway signs it), with the CPU per answer of
 * the gateway, data and Postgres in each, and the throughput ratio of the two.
 *
 *   npx -y pnpm@10 bench mixed
 *   BENCH_SECONDS=60 MIXED_X402_RATE=20 npx -y pnpm@10 bench mixed
 *   npx -y pnpm@10 build && MIXED_DIST=1 npx -y pnpm@10 bench mixed   (the processes from dist/)
 *
 * Needs the machine's Postgres, NATS (JetStream) and Redis (the gateway's rate-limit buckets).
 * BENCH_VERBOSE=1 shows the children's logs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_NATS_URL, startTestGround, type TestGround } from '@meridian/runtime/testing';
import { startSmtp } from '@meridian/test-peers';
import { startX402Facilitator, type X402Facilitator } from '@meridian/test-peers/x402-facilitator';
import { cpuSeconds, freePort, resetPeak, statusOf, stopAll } from './support.js';
import { expectStatus, prepareAccount } from './mixed/account.js';
import { renewedAssertion, ultraKeyCaller } from './mixed/assertion.js';
import { signedPayments } from './mixed/payments.js';
import {
  backendsOf,
  cpuMeter,
  cpuOfLiving,
  DIST,
  drive,
  processesOf,
  start,
  type Part,
  type Stream,
} from './mixed/processes.js';
import { printLines, printMemory, type Line, type Measured } from './mixed/report.js';
import {
  DATA_ROUTES,
  dataStreams,
  directStreams,
  PAID_ROUTE,
  PORTAL_ROUTES,
  portalStreams,
  SECONDS,
  X402_RATE,
  x402Stream,
} from './mixed/streams.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SERVICES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'] as const;

/** What a run holds, so its end can stop and drop whatever of it started. */
interface Run {
  ground: TestGround;
  dir: string;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  secret: string;
  parts: Part[];
  facilitator?: X402Facilitator;
}

/** The local facilitator, then every service, the portal and the gateway, one at a time; the gateway. */
async function startSystem(run: Run): Promise<Part> {
  const facilitator = await startX402Facilitator();
  run.facilitator = facilitator;
  const env: Record<string, string> = {
    // Each service's pool at its default size (DATABASE_POOL_SIZE 10), as deployed.
    DATABASE_URL: run.ground.databaseUrl,
    NATS_URL: TEST_NATS_URL,
    BUS_NAMESPACE: run.ground.namespace,
    INTERNAL_AUTH_SECRET: run.secret,
    DATA_DIR: run.dir,
    LOG_LEVEL: 'warn',
    SMTP_URL: run.smtp.url,
    // Nothing listens there: the analysis service never asks a resolver off this machine.
    DNS_SERVERS: `127.0.0.1:${await freePort()}`,
    FACILITATOR_URL: facilitator.url,
    X402_NETWORK: facilitator.network,
    X402_PAY_TO: facilitator.payTo,
    // The gateway enforces it, identity and billing show it: ultra's limit lifted above the load.
    RATE_LIMITS: 'ultra=100000000',
  };
  const started = Date.now();
  // One at a time, so a start's peak is its own and not six compilers at once.
  for (const name of SERVICES) run.parts.push(await start(name, `services/${name}`, env));
  run.parts.push(await start('portal', 'portal', env));
  const urls = Object.fromEntries(run.parts.map((p) => [`${p.name.toUpperCase()}_URL`, p.url]));
  const gateway = await start('gateway', 'gateway', env, {
    ...urls,
    METRICS_PORT: '0',
    REDIS_URL,
    RATE_LIMIT_PREFIX: `bench:${run.ground.namespace}:`,
  });
  run.parts.push(gateway);
  console.log(
    `node ${process.version}; started ${run.parts.length} processes (${DIST ? 'dist/main.js' : 'tsx'}) + the facilitator in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return gateway;
}

/** The account, the replay's first load in, every portal route answering, the payments signed. */
async function prepare(gateway: Part, run: Run, facilitator: X402Facilitator) {
  const account = await prepareAccount(gateway.url, run.smtp, {
    DATABASE_URL: run.ground.databaseUrl,
    NATS_URL: TEST_NATS_URL,
    BUS_NAMESPACE: run.ground.namespace,
  });
  const keyHeaders = account.keys.map((k) => ({ 'x-api-key': k.key }));
  // The replay's first load: data answers 503 until it is in.
  for (const route of DATA_ROUTES) {
    const until = Date.now() + 120_000;
    for (;;) {
      const res = await fetch(`${gateway.url}${route}`, { headers: keyHeaders[0]! });
      if (res.status === 200) break;
      if (res.status !== 503 || Date.now() > until)
        throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const session = { authorization: `Bearer ${account.session}` };
  for (const route of PORTAL_ROUTES)
    await expectStatus(await fetch(`${gateway.url}${route}`, { headers: session }), 200, route);

  const paymentsNeeded = X402_RATE > 0 ? Math.ceil(X402_RATE * SECONDS * 1.2) + 20 : 0;
  const signing = Date.now();
  const pool = await signedPayments(gateway.url, facilitator, PAID_ROUTE, paymentsNeeded);
  console.log(`${pool.length} payments signed in ${((Date.now() - signing) / 1000).toFixed(1)} s`);
  // Five paid calls one by one: the x402 path's first use (fee payer, pools) is not measured.
  for (let i = 0; i < Math.min(5, pool.length); i++)
    await expectStatus(
      await fetch(`${gateway.url}${PAID_ROUTE}`, { headers: { 'payment-signature': pool.pop()! } }),
      200,
      'a paid call',
    );
  return { account, keyHeaders, session, pool };
}

/** Every stream at once for SECONDS, after a warm-up; the routes' table and the processes'. */
async function mixedLoad(
  run: Run,
  facilitatorPid: number,
  streams: { viaGateway: Stream[]; portal: Stream[]; x402: Stream },
  spent: { count: number },
): Promise<number[]> {
  // Warm-up (JIT, keep-alive pools, caches): the data and portal streams for 3 s, not measured.
  await drive([...streams.viaGateway, ...streams.portal], 3);
  const measured: Measured[] = processesOf(run.parts, facilitatorPid).map((p) => {
    const s = statusOf(p.pid);
    return { ...p, beforeRssMb: s.rssMb, startPeakMb: s.hwmMb, cpuBefore: cpuSeconds(p.pid) };
  });
  for (const m of measured) resetPeak(m.pid);
  resetPeak(process.pid);
  const backends = await backendsOf(run.ground.databaseUrl);
  const backendsCpu = cpuOfLiving(backends);
  const benchCpu = process.cpuUsage();
  const load = loadavg()[0]!;
  const t0 = performance.now();
  const lines = await drive(
    [...streams.viaGateway, ...streams.portal, ...(X402_RATE > 0 ? [streams.x402] : [])],
    SECONDS,
  );
  const elapsed = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(benchCpu);
  const self = statusOf(process.pid);
  console.log(
    `\nmixed load, ${SECONDS} s, every route at once (autocannon, one instance per route, in this process); x402 at ${X402_RATE}/s, ${spent.count} payments used; load average ${load.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after, ${cpus().length} cores`,
  );
  printLines('', lines, SECONDS);
  printMemory(measured, elapsed, {
    bench: { cpu: (used.user + used.system) / 1e6, rss: self.rssMb, hwm: self.hwmMb },
    postgres: { count: backends.length, cpu: cpuOfLiving(backends) - backendsCpu },
    answers: lines.reduce((sum, l) => sum + l.result.requests.total, 0),
  });
  return backends;
}

/** `streams` alone for `seconds`: their table and the CPU per answer of `meter`'s processes. */
async function alone(
  title: string,
  streams: Stream[],
  seconds: number,
  meterOf: () => () => Record<string, number>,
): Promise<Line[]> {
  const load = loadavg()[0]!;
  const meter = meterOf();
  const lines = await drive(streams, seconds);
  const cpu = meter();
  printLines(`${title} (load average ${load.toFixed(1)})`, lines, seconds);
  const answers = lines.reduce((s, l) => s + l.result.requests.total, 0);
  console.log(
    `CPU ms per answer: ${Object.entries(cpu)
      .map(([n, c]) => `${n} ${((c * 1000) / answers).toFixed(2)}`)
      .join(', ')}`,
  );
  return lines;
}

/** Data reads alone: through the gateway, then straight to the data service; their ratio. */
async function dataAlone(
  run: Run,
  gateway: Part,
  viaGateway: Stream[],
  account: { accountId: string; keys: { id: string }[] },
  backends: number[],
): Promise<void> {
  const half = Math.max(5, Math.round(SECONDS / 2));
  const assertion = await renewedAssertion(
    run.secret,
    ultraKeyCaller(account.accountId, account.keys[0]!.id),
  );
  const data = run.parts.find((p) => p.name === 'data')!;
  try {
    const meterOf = () =>
      cpuMeter({ gateway: [gateway.child.pid!], data: [data.child.pid!], Postgres: backends });
    const gatewayLines = await alone(
      `data reads alone, ${half} s, through the gateway (API keys)`,
      viaGateway,
      half,
      meterOf,
    );
    const directLines = await alone(
      `data reads alone, ${half} s, straight to the data service (caller assertion)`,
      directStreams(data.url, assertion.current),
      half,
      meterOf,
    );
    const rps = (ls: Line[]) => ls.reduce((s, l) => s + l.result.requests.total, 0) / half;
    console.log('\ngateway / direct, throughput:');
    gatewayLines.forEach((g, i) => {
      const d = directLines[i]!;
      console.log(
        `  ${g.route.padEnd(56)} ${(g.result.requests.total / d.result.requests.total).toFixed(2)}  (p50 ${g.result.latency.p50} vs ${d.result.latency.p50} ms, p99 ${g.result.latency.p99} vs ${d.result.latency.p99} ms)`,
      );
    });
    console.log(`  ${'all data routes'.padEnd(56)} ${(rps(gatewayLines) / rps(directLines)).toFixed(2)}`);
  } finally {
    assertion.stop();
  }
}

export async function run(): Promise<void> {
  const state: Run = {
    ground: await startTestGround('bench_mixed'),
    dir: mkdtempSync(join(tmpdir(), 'mixed-bench-')),
    smtp: await startSmtp(),
    secret: randomBytes(32).toString('hex'),
    parts: [],
  };
  try {
    const gateway = await startSystem(state);
    const facilitator = state.facilitator!;
    const { account, keyHeaders, session, pool } = await prepare(gateway, state, facilitator);
    const viaGateway = dataStreams(gateway.url, (i) => keyHeaders[i % keyHeaders.length]!);
    const portal = portalStreams(gateway.url, session);
    const spent = { count: 0 };
    const x402 = x402Stream(gateway.url, pool, spent);
    const backends = await mixedLoad(state, facilitator.pid, { viaGateway, portal, x402 }, spent);
    await dataAlone(state, gateway, viaGateway, account, backends);
  } finally {
    await stopAll(state.parts.map((p) => p.child));
    await state.facilitator?.close();
    await state.smtp.close();
    await state.ground.close();
    rmSync(state.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run().then(() => process.exit(0));
