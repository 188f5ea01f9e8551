import { catalogFor } from '@meridian/contracts';
/**
 * Gateway figures: the same wrk load, on loopback, against
 *   (a) a tiny upstream answering a 300-byte JSON,
 *   (b) a raw node:http keep-alive proxy in front of it,
 *   (c) nginx as reverse proxy with upstream keep-alive,
 *   (d) our gateway doing key check, plan gate and rate limit (memory buckets; d-redis: Redis),
 * printing requests/s, p50/p99 and CPU µs per request of the measured process, the ratios d/b and
 * d/c, whether each (d) row meets the target (d/b ≥ 1.0: at least as fast as the raw proxy), the
 * gateway's CPU per request beside nginx's, the CPU of each layer of the data path measured in
 * process, key verifications per second from the cache, and the time a revocation takes to apply.
 * Every proxy reaches the same upstream over keep-alive connections, under the same wrk settings.
 *
 *   npx -y pnpm@10 bench gateway
 *   npx -y pnpm@10 exec tsx --conditions=source gateway/bench/proxy.ts     (the same, this file alone)
 *
 * Needs wrk and nginx (apt-get install -y wrk nginx-light), and the machine's PostgreSQL, NATS and
 * Redis (the real identity service verifies the key). BENCH_SECONDS (10: each row's measured time,
 * in BENCH_ROUNDS (3) runs, the rows taking turns, after a warm-up of one run), BENCH_CONNECTIONS (50);
 * BENCH_CPU_PROF=<dir> has the memory-bucket gateway write a V8 CPU profile there as it stops;
 * BENCH_DIST=1 runs the gateways from gateway/dist (after `pnpm build`), as the images do.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'nats';
import { createNatsBus, type Bus } from '@meridian/bus';
import type { Caller, KeyVerifyReply } from '@meridian/contracts';
import { createTestDatabase } from '@meridian/db/testing';
import { assertionKey } from '@meridian/http-kit';
import { createLogger } from '@meridian/observability';
import { linkIn, startSmtp } from '@meridian/test-peers';
import { AssertionSigner } from '../src/edge/assertion.js';
import { identityCaches } from '../src/adapters/identity.js';
import type { VerifiedCache } from '../src/adapters/verified-cache.js';
import { dataTarget, gateRefusal } from '../src/domain/data-route.js';
import { keyFormatValid } from '../src/domain/key-format.js';
import { planPolicy, rateLimitHeaders } from '../src/domain/token-bucket.js';
import { MemoryRateLimiter, type RateLimiter } from '../src/adapters/rate-limiter.js';
import { RedisRateLimiter } from '../src/adapters/redis-rate-limiter.js';
import { freePort, launch, tsx, waitHttp } from '../../bench/support.js';

/** The catalogue of INGEST_MODE=replay, the default. */
const REPLAY = catalogFor('replay');

type Smtp = Awaited<ReturnType<typeof startSmtp>>;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Each row's SECONDS are measured in this many runs, the rows taking turns (see measureAll). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET = randomUUID() + randomUUID();
const TICK_US = 1_000_000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
const PATH = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
/**
 * BENCH_DIST=1 runs the gateways from gateway/dist (after `pnpm build`), as the images do; else
 * through tsx, whose transform names every function it creates (a defineProperty per closure).
 */
const GATEWAY = process.env.BENCH_DIST === '1' ? ['gateway/dist/main.js'] : tsx('gateway/src/main.ts');
/**
 * Each measured proxy runs alone on the last core, the load (wrk), the upstream, identity and
 * Redis on the others: a row's figures then depend on its own CPU per request, not on where the
 * scheduler happened to put it beside wrk and the upstream (unpinned, the same build read 0.83-1.34
 * × the raw proxy from run to run on 2 cores).
 */
const CPUS = cpus().length;
const MEASURED_CPU = String(CPUS - 1);
const LOAD_CPUS = CPUS > 1 ? `0-${CPUS - 2}` : '0';

function pin(cpu: string, pids: number[]): void {
  for (const pid of pids) spawnSync('taskset', ['-a', '-pc', cpu, String(pid)]);
}

interface Row {
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
interface Target {
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
async function measureAll(targets: Target[]): Promise<Row[]> {
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

function nginxConf(dir: string, port: number, upstreamPort: number): string {
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

function nginxPids(dir: string): number[] {
  const master = Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim());
  const children = spawnSync('pgrep', ['-P', String(master)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  return [master, ...children.map(Number)];
}

/** A real account and key through the gateway: sign-up, the mailed token, sign-in, POST /v1/keys. */
async function realKey(gateway: string, smtp: Smtp): Promise<{ key: string; id: string; cookie: string }> {
  const json = { 'content-type': 'application/json' };
  const email = `bench${randomUUID().slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  await fetch(`${gateway}/auth/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  const deadline = Date.now() + 15_000;
  while (!smtp.mails.some((m) => m.to === email) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const token = linkIn(smtp.mails.find((m) => m.to === email)!).searchParams.get('token');
  await fetch(`${gateway}/auth/verify-email`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ token }),
  });
  const login = await fetch(`${gateway}/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const created = await fetch(`${gateway}/v1/keys`, { method: 'POST', headers: { cookie } });
  const { data } = (await created.json()) as { data: { key: string; id: string } };
  return { ...data, cookie };
}

/** A key cache of the gateway's settings, filled with `key` by one request to identity. */
async function filledKeyCache(bus: Bus, key: string): Promise<VerifiedCache<KeyVerifyReply>> {
  const { keys } = identityCaches(bus, {
    KEY_CACHE_TTL_MS: 600_000,
    KEY_CACHE_MAX: 100_000,
    KEY_NEGATIVE_TTL_MS: 15_000,
    KEY_NEGATIVE_MAX: 10_000,
    SESSION_CACHE_TTL_MS: 30_000,
    SESSION_NEGATIVE_TTL_MS: 15_000,
    IDENTITY_MAX_IN_FLIGHT: 64,
    FAILED_VERIFICATIONS_PER_MIN: 30,
  });
  const first = await keys.verify(key);
  if (!first.ok) throw new Error(`identity refused the bench key: ${first.problem.detail}`);
  return keys;
}

function cacheVerificationsPerSecond(keys: VerifiedCache<KeyVerifyReply>, key: string): number {
  const n = 1_000_000;
  // The cached answer is synchronous; a promise here would time the identity round trip instead.
  if (keys.verify(key) instanceof Promise) throw new Error('the bench key is not cached');
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink.value = keys.verify(key);
  return n / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Keeps the measured results alive, so the JIT cannot drop the work. */
const sink: { value: unknown } = { value: undefined };

/** CPU µs (user + system) per call of a synchronous step, after a warm-up of a tenth as many. */
function cpuPerCall(n: number, step: (i: number) => unknown): number {
  for (let i = 0; i < n / 10; i++) sink.value = step(i);
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) sink.value = step(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/** CPU µs per call of an asynchronous step, `inFlight` at a time as under load. */
async function cpuPerAsyncCall(n: number, inFlight: number, step: () => Promise<unknown>): Promise<number> {
  const batch = () => Promise.all(Array.from({ length: inFlight }, step));
  for (let i = 0; i < n / 10; i += inFlight) sink.value = await batch();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i += inFlight) sink.value = await batch();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

interface Layer {
  name: string;
  us: number;
}

/**
 * Each step of the data path of (d), alone in this process, with fixed iteration counts so every
 * run does the same work. What (d) spends beyond their sum is the HTTP and the proxy hop.
 */
async function layers(keys: VerifiedCache<KeyVerifyReply>, key: string, namespace: string) {
  const reply = keys.verify(key) as { ok: true; value: KeyVerifyReply };
  const policy = planPolicy('free', { free: 100_000_000, basic: 60, pro: 300, ultra: 1200 });
  const path = PATH.slice(0, PATH.indexOf('?'));
  const memory = new MemoryRateLimiter();
  const redis = new RedisRateLimiter(
    REDIS_URL,
    `bench:${namespace}:layers:`,
    createLogger('bench', { level: 'silent' }),
  );
  const signer = new AssertionSigner(assertionKey(SECRET));
  const caller: Caller = {
    account_id: reply.value.account_id,
    plan: reply.value.plan,
    auth: 'api_key',
    key_id: reply.value.key_id,
    session_id: null,
  };
  await signer.tokenFor(caller);
  const decision = memory.take('warm', policy);
  try {
    const until = Date.now() + 5000;
    while (!redis.shared) {
      if (Date.now() > until) throw new Error(`Redis at ${REDIS_URL} did not answer`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const common: Layer[] = [
      { name: 'key format + CRC-32 checksum', us: cpuPerCall(200_000, () => keyFormatValid(key)) },
      { name: 'key lookup from cache (SHA-256 + LRU)', us: cpuPerCall(200_000, () => keys.verify(key)) },
      {
        name: 'route + plan gate',
        us: cpuPerCall(200_000, () => gateRefusal('free', dataTarget(path, REPLAY))),
      },
      { name: 'rate-limit headers', us: cpuPerCall(200_000, () => rateLimitHeaders(decision)) },
      { name: 'assertion from cache', us: cpuPerCall(200_000, () => signer.tokenFor(caller)) },
    ];
    // The key's bucket and the account-wide one, as the data path takes them (takeWithin).
    const within = (limiter: RateLimiter) =>
      limiter.takeWithin(reply.value.key_id, policy, 'retired', 'account', policy);
    const memoryTake = cpuPerCall(200_000, () => within(memory));
    const redisTake = await cpuPerAsyncCall(20_000, CONNECTIONS, async () => within(redis));
    return { common, memoryTake, redisTake };
  } finally {
    await redis.close();
  }
}

function printLayers(result: Awaited<ReturnType<typeof layers>>, d: Row, dr: Row): void {
  const line = (name: string, us: number) =>
    console.log(`  ${name.padEnd(54)} ${us.toFixed(2).padStart(7)} µs`);
  console.log('\nCPU per call of each layer of (d), in this process:');
  for (const layer of result.common) line(layer.name, layer.us);
  line('token buckets (key + account), memory', result.memoryTake);
  line(`token buckets (key + account), Redis (${CONNECTIONS} in flight)`, result.redisTake);
  const common = result.common.reduce((sum, l) => sum + l.us, 0);
  for (const [row, take, label] of [
    [d, result.memoryTake, 'mem'],
    [dr, result.redisTake, 'redis'],
  ] as const) {
    const sum = common + take;
    line(`sum of the layers (${label})`, sum);
    line(`proxy hop and HTTP = (d ${label}) ${row.cpuUs.toFixed(1)} - sum`, row.cpuUs - sum);
  }
}

/** The target: the full path at least as fast as the raw proxy (b) of the same run. */
function verdict(name: string, d: Row, b: Row): string {
  const ratio = d.rps / b.rps;
  const rounds = d.rounds.map((rps, i) => (rps / b.rounds[i]!).toFixed(2)).join(' ');
  return `${name}: d/b ${ratio.toFixed(2)} ${ratio >= 1 ? '≥ 1.0: met' : '< 1.0: NOT met'} (rounds ${rounds}; CPU/req ${(d.cpuUs / b.cpuUs).toFixed(2)} × (b))`;
}

/** CPU per request of the gateway beside nginx's and the raw proxy's, from the same run. */
function cpuBeside(d: Row, dr: Row, b: Row, c: Row): string {
  const us = (row: Row) => `${row.cpuUs.toFixed(1)} µs`;
  return (
    `CPU per request: gateway ${us(d)} (memory buckets), ${us(dr)} (Redis buckets);` +
    ` nginx ${us(c)}; raw node:http proxy ${us(b)};` +
    ` gateway/nginx ${(d.cpuUs / c.cpuUs).toFixed(1)} × (Redis ${(dr.cpuUs / c.cpuUs).toFixed(1)} ×)`
  );
}

async function revocationMs(
  gateways: string[],
  key: { key: string; id: string; cookie: string },
): Promise<number> {
  const revoked = await fetch(`${gateways[0]}/v1/keys/${key.id}/revoke`, {
    method: 'POST',
    headers: { cookie: key.cookie },
  });
  if (revoked.status !== 200) throw new Error(`revoke answered ${revoked.status}`);
  const at = performance.now();
  await Promise.all(
    gateways.map(async (g) => {
      while ((await fetch(`${g}${PATH}`, { headers: { 'x-api-key': key.key } })).status !== 401) {
        if (performance.now() - at > 5000) throw new Error('revocation did not apply within 5 s');
      }
    }),
  );
  return performance.now() - at;
}

/** The JetStream streams identity created under the bench's namespace. */
async function dropStreams(namespace: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  const jsm = await nc.jetstreamManager();
  for await (const name of jsm.streams.names())
    if (name.startsWith(`${namespace.toUpperCase()}_`)) await jsm.streams.delete(name);
  await nc.close();
}

async function main(): Promise<void> {
  for (const tool of ['wrk', 'nginx']) {
    if (spawnSync('which', [tool]).status !== 0)
      throw new Error(`${tool} is missing: apt-get install -y wrk nginx-light`);
  }
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const namespace = `bench${randomUUID().slice(0, 8)}`;
  const db = await createTestDatabase('bench_gateway');
  const smtp = await startSmtp();
  let bus: Bus | undefined;
  let nginxDir: string | undefined;
  try {
    const shared = {
      DATABASE_URL: db.url,
      NATS_URL,
      BUS_NAMESPACE: namespace,
      INTERNAL_AUTH_SECRET: SECRET,
      LOG_LEVEL: 'warn',
    };
    // The real identity service, in its own process as in production, verifies the bench's key.
    const identityPort = await freePort();
    const identityUrl = `http://127.0.0.1:${identityPort}`;
    children.push(
      launch(tsx('services/identity/src/main.ts'), {
        ...shared,
        PORT: String(identityPort),
        DATA_DIR: dir,
        SMTP_URL: smtp.url,
      }),
    );
    await waitHttp(`${identityUrl}/ready`);
    const upPort = await freePort();
    const rawPort = await freePort();
    const nginxPort = await freePort();
    const gwPort = await freePort();
    const gwRedisPort = await freePort();
    const upstream = launch(tsx('gateway/bench/peers/upstream.ts'), { PORT: String(upPort) });
    const raw = launch(tsx('gateway/bench/peers/raw-proxy.ts'), {
      PORT: String(rawPort),
      TARGET: `http://127.0.0.1:${upPort}`,
    });
    const gatewayEnv = {
      ...shared,
      IDENTITY_URL: identityUrl,
      DATA_URL: `http://127.0.0.1:${upPort}`,
      // The limiter runs on every call but never refuses the load.
      RATE_LIMITS: 'free=100000000',
      RATE_LIMIT_PREFIX: `bench:${namespace}:`,
      LOG_LEVEL: 'error',
      METRICS_PORT: '0',
    };
    // BENCH_CPU_PROF=<dir>: the memory-bucket gateway writes a V8 CPU profile there when it stops.
    const profile = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
    const gateway = launch([...profile, ...GATEWAY], {
      ...gatewayEnv,
      PORT: String(gwPort),
    });
    const gatewayRedis = launch(GATEWAY, {
      ...gatewayEnv,
      PORT: String(gwRedisPort),
      REDIS_URL,
    });
    children.push(upstream, raw, gateway, gatewayRedis);
    nginxDir = dir;
    spawnSync('nginx', ['-c', nginxConf(dir, nginxPort, upPort)]);
    const up = `http://127.0.0.1:${upPort}`;
    await waitHttp(up);
    await waitHttp(`http://127.0.0.1:${rawPort}`);
    await waitHttp(`http://127.0.0.1:${nginxPort}`);
    await waitHttp(`http://127.0.0.1:${gwPort}/health`);
    await waitHttp(`http://127.0.0.1:${gwRedisPort}/health`);
    pin(MEASURED_CPU, [raw.pid!, gateway.pid!, gatewayRedis.pid!, ...nginxPids(dir)]);
    const redisServers = spawnSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' }).stdout;
    pin(LOAD_CPUS, [
      upstream.pid!,
      children[0]!.pid!,
      ...redisServers.split('\n').filter(Boolean).map(Number),
    ]);
    const key = await realKey(`http://127.0.0.1:${gwPort}`, smtp);
    const auth = { 'x-api-key': key.key };

    console.log(
      `\n${CONNECTIONS} connections, ${SECONDS} s per row in ${ROUNDS} interleaved rounds, wrk -t1, loopback; CPU of the measured process only;` +
        ` measured process on CPU ${MEASURED_CPU}, wrk, upstream, identity and Redis on CPU ${LOAD_CPUS};` +
        ` gateway from ${GATEWAY.at(-1)}\n`,
    );
    const [a, b, c, d, dr, express] = (await measureAll([
      { name: '(a) upstream alone', url: `${up}${PATH}`, pids: [upstream.pid!] },
      { name: '(b) raw node:http proxy', url: `http://127.0.0.1:${rawPort}${PATH}`, pids: [raw.pid!] },
      {
        name: '(c) nginx, upstream keepalive',
        url: `http://127.0.0.1:${nginxPort}${PATH}`,
        pids: nginxPids(dir),
      },
      {
        name: '(d) gateway: key, gate, limit (mem)',
        url: `http://127.0.0.1:${gwPort}${PATH}`,
        pids: [gateway.pid!],
        headers: auth,
      },
      {
        name: '(d) gateway: key, gate, limit (redis)',
        url: `http://127.0.0.1:${gwRedisPort}${PATH}`,
        pids: [gatewayRedis.pid!],
        headers: auth,
      },
      {
        name: '    gateway express path (public)',
        url: `http://127.0.0.1:${gwPort}/v1/catalog`,
        pids: [gateway.pid!],
      },
    ])) as [Row, Row, Row, Row, Row, Row];
    void a;
    void express;
    console.log(
      `\nd/b throughput ${(d.rps / b.rps).toFixed(2)}, CPU ${(d.cpuUs / b.cpuUs).toFixed(2)};` +
        ` d/c throughput ${(d.rps / c.rps).toFixed(2)}, CPU ${(d.cpuUs / c.cpuUs).toFixed(2)};` +
        ` d(redis)/b throughput ${(dr.rps / b.rps).toFixed(2)}`,
    );
    console.log('target: (d) at least as fast as (b), the raw node:http proxy: d/b ≥ 1.0');
    console.log(`  ${verdict('(d) memory buckets', d, b)}`);
    console.log(`  ${verdict('(d) Redis buckets', dr, b)}`);
    console.log(cpuBeside(d, dr, b, c));

    bus = await createNatsBus({ url: NATS_URL, name: 'bench', namespace });
    const keys = await filledKeyCache(bus, key.key);
    printLayers(await layers(keys, key.key, namespace), d, dr);
    const perSecond = cacheVerificationsPerSecond(keys, key.key);
    console.log(
      `key verifications from the cache: ${(perSecond / 1e6).toFixed(2)} M/s (one core, SHA-256 of the key included)`,
    );
    const ms = await revocationMs([`http://127.0.0.1:${gwPort}`, `http://127.0.0.1:${gwRedisPort}`], key);
    console.log(
      `revocation applied on both gateway replicas after ${ms.toFixed(0)} ms (outbox relay + NATS fan-out)`,
    );
  } finally {
    if (nginxDir) spawnSync('nginx', ['-c', join(nginxDir, 'nginx.conf'), '-s', 'stop']);
    for (const child of children) child.kill('SIGTERM');
    await bus?.close();
    await dropStreams(namespace).catch(() => {});
    await db.drop();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Entry for `pnpm bench gateway` (bench/run.ts). */
export const run = main;

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
