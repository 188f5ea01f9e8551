/**
 * A mixed load on the split system (load, speed and memory): every service, the
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
import { type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import autocannon from 'autocannon';
import { INTERNAL_ASSERTION_HEADER, type Caller } from '@meridian/contracts';
import { openDatabase } from '@meridian/db';
import { createTestDatabase } from '@meridian/db/testing';
import { assertionKey, signCallerAssertion } from '@meridian/http-kit';
import { linkIn, runScript, startSmtp } from '@meridian/test-peers';
import { startX402Facilitator, type X402Facilitator } from '@meridian/test-peers/x402-facilitator';
import {
  cpuSeconds,
  descendants,
  dropStreams,
  freePort,
  launch,
  NODE_FLAGS,
  resetPeak,
  statusOf,
  stopAll,
  tsx,
  waitHttp,
} from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const X402_RATE = Number(process.env.MIXED_X402_RATE ?? 10);
const DIST = process.env.MIXED_DIST === '1';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Connections per route. All of them come from one address: the gateway's default in-flight
 *  limit per client address (MAX_IN_FLIGHT_PER_CLIENT, 64) is above their sum (5×6 + 4×3 + 4 = 46). */
const DATA_CONNECTIONS = 6;
const PORTAL_CONNECTIONS = 3;
const X402_CONNECTIONS = 4;
const PASSWORD = `bench-${randomUUID()}`;

/** Metric routes of the replay catalogue, across products and plan gates (ultra reads every one). */
const DATA_ROUTES = [
  '/v1/data/crypto/spot/reference_price?entity=BTC-USD',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m',
  '/v1/data/crypto/futures/funding?entity=BTC-USD',
  '/v1/data/fx/spot/reference_rate?entity=EUR-USD',
  '/v1/data/weather/observations/temperature?entity=london',
];
const PAID_ROUTE = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const DOMAIN = 'bench.example';
/** Session reads of the portal through the gateway, and the web page the portal process serves. */
const PORTAL_ROUTES = [
  '/v1/account',
  '/v1/account/billing/history',
  `/v1/analysis/reports?domain=${DOMAIN}`,
  '/',
];
const SERVICES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'] as const;

interface Part {
  name: string;
  child: ChildProcess;
  url: string;
}

interface Stream {
  group: 'data' | 'portal' | 'x402';
  route: string;
  connections: number;
  options: autocannon.Options;
}

interface Line {
  group: string;
  route: string;
  connections: number;
  result: autocannon.Result;
}

const json = { 'content-type': 'application/json' };

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
  return res;
}

/**
 * An account through the real flow: sign-up, the mailed link's page and its form, sign-in; credit
 * from the operators' CLI, the ultra plan bought with it; two API keys; a domain (no runs yet).
 */
async function prepareAccount(
  gateway: string,
  smtp: Awaited<ReturnType<typeof startSmtp>>,
  databaseUrl: string,
): Promise<{ session: string; accountId: string; keys: { id: string; key: string }[] }> {
  const email = `bench.${randomUUID().slice(0, 8)}@example.com`;
  await expectStatus(
    await fetch(`${gateway}/auth/signup`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    202,
    'sign-up',
  );
  const deadline = Date.now() + 15_000;
  while (!smtp.mails.some((m) => m.to === email) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const mail = smtp.mails.find((m) => m.to === email);
  if (!mail) throw new Error(`no confirmation mail for ${email}`);
  const link = linkIn(mail);
  const page = await expectStatus(
    await fetch(`${gateway}${link.pathname}${link.search}`),
    200,
    'the mailed link',
  );
  const form = (await page.text()).match(
    /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s,
  );
  if (!form) throw new Error('no form on the confirmation page');
  await expectStatus(
    await fetch(`${gateway}${form[1]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: form[2]! }),
    }),
    200,
    'confirmation',
  );
  const login = await expectStatus(
    await fetch(`${gateway}/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    200,
    'sign-in',
  );
  const session = ((await login.json()) as { data: { token: string } }).data.token;
  const bearer = { authorization: `Bearer ${session}` };
  const whoami = async () =>
    (
      (await (await fetch(`${gateway}/v1/agent/whoami`, { headers: bearer })).json()) as {
        data: { account_id: string; plan: string };
      }
    ).data;
  const accountId = (await whoami()).account_id;
  const granted = await runScript(
    'services/billing/scripts/admin.ts',
    ['grant', '--operator', 'bench', '--account', accountId, '--amount', '500000000', '--note', 'bench'],
    { DATABASE_URL: databaseUrl },
  );
  if (granted.code !== 0) throw new Error(`billing:admin grant failed: ${granted.stderr}`);
  await expectStatus(
    await fetch(`${gateway}/v1/billing/plan`, {
      method: 'POST',
      headers: { ...json, ...bearer },
      body: JSON.stringify({ plan: 'ultra' }),
    }),
    200,
    'the ultra plan',
  );
  // Billing announces the plan; identity applies it to the account and its keys.
  const planDeadline = Date.now() + 15_000;
  while ((await whoami()).plan !== 'ultra') {
    if (Date.now() > planDeadline) throw new Error('the ultra plan did not reach identity within 15 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const keys: { id: string; key: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await expectStatus(
      await fetch(`${gateway}/v1/keys`, { method: 'POST', headers: { ...json, ...bearer }, body: '{}' }),
      201,
      'POST /v1/keys',
    );
    keys.push(((await created.json()) as { data: { id: string; key: string } }).data);
  }
  await expectStatus(
    await fetch(`${gateway}/v1/analysis/domains`, {
      method: 'POST',
      headers: { ...json, ...bearer },
      body: JSON.stringify({ domain: DOMAIN }),
    }),
    201,
    'POST /v1/analysis/domains',
  );
  return { session, accountId, keys };
}

/** `count` payments of the challenge of `path`, each a transfer signed by x402's client, base64. */
async function signedPayments(
  gateway: string,
  facilitator: X402Facilitator,
  path: string,
  count: number,
): Promise<string[]> {
  const challenge = (await (
    await expectStatus(await fetch(`${gateway}${path}`), 402, 'the challenge')
  ).json()) as {
    resource: unknown;
    accepts: Record<string, unknown>[];
  };
  const requirements = challenge.accepts[0]!;
  const wallet = await facilitator.wallet({ usdc: Number(requirements.amount) * (count + 10) });
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
  const scheme = new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl });
  const out: string[] = [];
  while (out.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, count - out.length) }, async () => {
        const partial = await scheme.createPaymentPayload(2, requirements as never);
        const payload = {
          x402Version: 2,
          resource: challenge.resource,
          accepted: requirements,
          payload: partial.payload,
        };
        return Buffer.from(JSON.stringify(payload)).toString('base64');
      }),
    );
    out.push(...batch);
  }
  return out;
}

/**
 * Starts the process of `folder` (its src/main.ts through tsx, or with MIXED_DIST=1 its built
 * dist/main.js, as the images run it) and waits for its /ready; `name` is its name in the tables.
 */
async function start(
  name: string,
  folder: string,
  env: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<Part> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Built, the portal serves the pages `pnpm build` bundled (as its image does), not its sources.
  const built: Record<string, string> =
    DIST && name === 'portal' ? { PORTAL_DIST: 'portal/dist/public' } : {};
  const args = [
    ...NODE_FLAGS,
    ...(DIST ? [join(folder, 'dist', 'main.js')] : tsx(join(folder, 'src', 'main.ts'))),
  ];
  const child = launch(args, { ...env, ...built, ...extra, PORT: String(port) });
  await waitHttp(`${url}/ready`, {}, 180_000).catch((err: Error) => {
    throw new Error(`${name}: ${err.message} (BENCH_VERBOSE=1 shows its stderr)`);
  });
  return { name, child, url };
}

/** Every stream at once for `seconds`; one autocannon instance per route. */
async function drive(streams: Stream[], seconds: number): Promise<Line[]> {
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

const count = (r: autocannon.Result, status: number) =>
  r.statusCodeStats?.[`${status}` as `${number}`]?.count ?? 0;

function printLines(title: string, lines: Line[], seconds: number): void {
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

interface Measured {
  name: string;
  pid: number;
  beforeRssMb: number;
  startPeakMb: number;
  cpuBefore: number;
}

/** A child's name in the tables: the entry it runs (a script's file, or the binary's). */
function entryOf(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const script = args.slice(1).find((a) => /\.(ts|js)$/.test(a)) ?? args[0] ?? '?';
  const name = basename(script);
  return name === 'esbuild' ? 'esbuild (its bundler)' : name;
}

/** Every process of the run, with the children each has (the portal's esbuild, the chain). */
function processesOf(parts: Part[], facilitatorPid: number | undefined): { name: string; pid: number }[] {
  const out: { name: string; pid: number }[] = [];
  const withChildren = (name: string, pid: number) => {
    out.push({ name, pid });
    for (const d of descendants(pid)) out.push({ name: `  └ ${entryOf(d.pid)}`, pid: d.pid });
  };
  for (const p of parts) withChildren(p.name, p.child.pid!);
  // Its child is the LiteSVM chain (solana-node.ts).
  if (facilitatorPid !== undefined) withChildren('x402 facilitator (local)', facilitatorPid);
  return out;
}

function printMemory(
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

/** The pids of the Postgres backends connected to the run's database (the services' pools). */
async function backendsOf(url: string): Promise<number[]> {
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
const cpuOfLiving = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum;
    }
  }, 0);

/** CPU seconds each group of processes (and this process, `load generator`) uses from now on. */
function cpuMeter(groups: Record<string, number[]>): () => Record<string, number> {
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

export async function run(): Promise<void> {
  const db = await createTestDatabase('bench_mixed');
  const dir = mkdtempSync(join(tmpdir(), 'mixed-bench-'));
  const smtp = await startSmtp();
  const namespace = `mixed${randomBytes(4).toString('hex')}`;
  const secret = randomBytes(32).toString('hex');
  const parts: Part[] = [];
  let facilitator: X402Facilitator | undefined;
  try {
    const before = new Set(descendants(process.pid).map((d) => d.pid));
    facilitator = await startX402Facilitator();
    const facilitatorPid = descendants(process.pid).find(
      (d) => !before.has(d.pid) && entryOf(d.pid) === 'x402-facilitator-process.ts',
    )?.pid;
    if (facilitatorPid === undefined) throw new Error('the facilitator process was not found');
    const env: Record<string, string> = {
      // Each service's pool at its default size (DATABASE_POOL_SIZE 10), as deployed.
      DATABASE_URL: db.url,
      NATS_URL,
      BUS_NAMESPACE: namespace,
      INTERNAL_AUTH_SECRET: secret,
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      SMTP_URL: smtp.url,
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
    for (const name of SERVICES) parts.push(await start(name, `services/${name}`, env));
    parts.push(await start('portal', 'portal', env));
    const urls = Object.fromEntries(parts.map((p) => [`${p.name.toUpperCase()}_URL`, p.url]));
    const gateway = await start('gateway', 'gateway', env, {
      ...urls,
      METRICS_PORT: '0',
      REDIS_URL,
      RATE_LIMIT_PREFIX: `bench:${namespace}:`,
    });
    parts.push(gateway);
    console.log(
      `node ${process.version}; started ${parts.length} processes (${DIST ? 'dist/main.js' : 'tsx'}) + the facilitator in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    const account = await prepareAccount(gateway.url, smtp, db.url);
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

    const dataStreams = (base: string, headersOf: (i: number) => Record<string, string>): Stream[] =>
      DATA_ROUTES.map((route, i) => ({
        group: 'data',
        route: route.slice('/v1/data/'.length),
        connections: DATA_CONNECTIONS,
        options: { url: `${base}${route}`, headers: headersOf(i) },
      }));
    const viaGateway = dataStreams(gateway.url, (i) => keyHeaders[i % keyHeaders.length]!);
    const portalStreams: Stream[] = PORTAL_ROUTES.map((route) => ({
      group: 'portal',
      route: route === '/' ? '/ (the web page)' : route,
      connections: PORTAL_CONNECTIONS,
      options: { url: `${gateway.url}${route}`, headers: session },
    }));
    let spent = 0;
    const x402Stream: Stream = {
      group: 'x402',
      route: `paid ${PAID_ROUTE.slice('/v1/data/'.length)}`,
      connections: X402_CONNECTIONS,
      options: {
        url: `${gateway.url}${PAID_ROUTE}`,
        overallRate: X402_RATE,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => {
              spent++;
              // An empty pool sends a used payment again: its 402 shows as non-2xx.
              const payment = pool.pop() ?? pool[0] ?? 'exhausted';
              return { ...req, headers: { ...req.headers, 'payment-signature': payment } };
            },
          },
        ],
      },
    };
    // Warm-up (JIT, keep-alive pools, caches): the data and portal streams for 3 s, not measured.
    await drive([...viaGateway, ...portalStreams], 3);

    const measured: Measured[] = processesOf(parts, facilitatorPid).map((p) => {
      const s = statusOf(p.pid);
      return { ...p, beforeRssMb: s.rssMb, startPeakMb: s.hwmMb, cpuBefore: cpuSeconds(p.pid) };
    });
    for (const m of measured) resetPeak(m.pid);
    resetPeak(process.pid);
    const backends = await backendsOf(db.url);
    const backendsCpu = cpuOfLiving(backends);
    const benchCpu = process.cpuUsage();
    const load = loadavg()[0]!;
    const t0 = performance.now();
    const lines = await drive(
      [...viaGateway, ...portalStreams, ...(X402_RATE > 0 ? [x402Stream] : [])],
      SECONDS,
    );
    const elapsed = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(benchCpu);
    const self = statusOf(process.pid);
    console.log(
      `\nmixed load, ${SECONDS} s, every route at once (autocannon, one instance per route, in this process); x402 at ${X402_RATE}/s, ${spent} payments used; load average ${load.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after, ${cpus().length} cores`,
    );
    printLines('', lines, SECONDS);
    printMemory(measured, elapsed, {
      bench: { cpu: (used.user + used.system) / 1e6, rss: self.rssMb, hwm: self.hwmMb },
      postgres: { count: backends.length, cpu: cpuOfLiving(backends) - backendsCpu },
      answers: lines.reduce((sum, l) => sum + l.result.requests.total, 0),
    });

    // Data reads alone: through the gateway, then straight to the data service.
    const half = Math.max(5, Math.round(SECONDS / 2));
    const key = assertionKey(secret);
    const caller: Caller = {
      account_id: account.accountId,
      plan: 'ultra',
      auth: 'api_key',
      key_id: account.keys[0]!.id,
      session_id: null,
    };
    let assertion = await signCallerAssertion(caller, key);
    // An assertion lives 60 s; a fresh one every 20 s, as the gateway reuses one for 30 s.
    const refresh = setInterval(() => {
      void signCallerAssertion(caller, key).then((a) => (assertion = a));
    }, 20_000);
    const data = parts.find((p) => p.name === 'data')!;
    try {
      const meterOf = () =>
        cpuMeter({ gateway: [gateway.child.pid!], data: [data.child.pid!], Postgres: backends });
      const alone = async (title: string, streams: Stream[]) => {
        const load = loadavg()[0]!;
        const meter = meterOf();
        const lines = await drive(streams, half);
        const cpu = meter();
        printLines(`${title} (load average ${load.toFixed(1)})`, lines, half);
        const answers = lines.reduce((s, l) => s + l.result.requests.total, 0);
        console.log(
          `CPU ms per answer: ${Object.entries(cpu)
            .map(([n, c]) => `${n} ${((c * 1000) / answers).toFixed(2)}`)
            .join(', ')}`,
        );
        return lines;
      };
      const gatewayLines = await alone(
        `data reads alone, ${half} s, through the gateway (API keys)`,
        viaGateway,
      );
      const directLines = await alone(
        `data reads alone, ${half} s, straight to the data service (caller assertion)`,
        DATA_ROUTES.map((route) => ({
          group: 'data',
          route: route.slice('/v1/data/'.length),
          connections: DATA_CONNECTIONS,
          options: {
            url: `${data.url}${route}`,
            requests: [
              {
                method: 'GET',
                setupRequest: (req) => ({
                  ...req,
                  headers: { ...req.headers, [INTERNAL_ASSERTION_HEADER]: assertion },
                }),
              },
            ],
          },
        })),
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
      clearInterval(refresh);
    }
  } finally {
    await stopAll(parts.map((p) => p.child));
    await facilitator?.close();
    await smtp.close();
    await dropStreams(NATS_URL, namespace).catch(() => {});
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run().then(() => process.exit(0));
