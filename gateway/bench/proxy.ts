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
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNatsBus, type Bus } from '@meridian/bus';
import { TEST_NATS_URL, startTestGround, type TestGround } from '@meridian/runtime/testing';
import { startSmtp } from '@meridian/test-peers';
import { freePort, launch, tsx, waitHttp } from '../../bench/support.js';
import {
  cacheVerificationsPerSecond,
  filledKeyCache,
  layers,
  PATH,
  printLayers,
  realKey,
  revocationMs,
} from './support/layers.js';
import {
  CONNECTIONS,
  cpuBeside,
  LOAD_CPUS,
  measureAll,
  MEASURED_CPU,
  nginxConf,
  nginxPids,
  pin,
  ROUNDS,
  SECONDS,
  verdict,
  type Row,
} from './support/load.js';

type Smtp = Awaited<ReturnType<typeof startSmtp>>;

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET = randomUUID() + randomUUID();
/**
 * BENCH_DIST=1 runs the gateways from gateway/dist (after `pnpm build`), as the images do; else
 * through tsx, whose transform names every function it creates (a defineProperty per closure).
 */
const GATEWAY = process.env.BENCH_DIST === '1' ? ['gateway/dist/main.js'] : tsx('gateway/src/main.ts');

/** The processes of one bench run: the measured proxies, their upstream and the real identity. */
interface Started {
  identity: ChildProcess;
  upstream: ChildProcess;
  raw: ChildProcess;
  gateway: ChildProcess;
  gatewayRedis: ChildProcess;
  urls: { up: string; raw: string; nginx: string; gateway: string; gatewayRedis: string };
}

/** Starts every process of the bench (pushed to `children` as they start) and nginx in `dir`. */
async function startAll(
  dir: string,
  ground: TestGround,
  smtp: Smtp,
  children: ChildProcess[],
): Promise<Started> {
  const { namespace } = ground;
  const shared = { ...ground.env, INTERNAL_AUTH_SECRET: SECRET };
  // The real identity service, in its own process as in production, verifies the bench's key.
  const identityPort = await freePort();
  const identityUrl = `http://127.0.0.1:${identityPort}`;
  const env = { ...shared, PORT: String(identityPort), DATA_DIR: dir, SMTP_URL: smtp.url };
  const identity = launch(tsx('services/identity/src/main.ts'), env);
  children.push(identity);
  await waitHttp(`${identityUrl}/ready`);
  const [upPort, rawPort, nginxPort, gwPort, gwRedisPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
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
  const gateway = launch([...profile, ...GATEWAY], { ...gatewayEnv, PORT: String(gwPort) });
  const gatewayRedis = launch(GATEWAY, { ...gatewayEnv, PORT: String(gwRedisPort), REDIS_URL });
  children.push(upstream, raw, gateway, gatewayRedis);
  spawnSync('nginx', ['-c', nginxConf(dir, nginxPort, upPort)]);
  const at = (port: number) => `http://127.0.0.1:${port}`;
  const urls = {
    up: at(upPort),
    raw: at(rawPort),
    nginx: at(nginxPort),
    gateway: at(gwPort),
    gatewayRedis: at(gwRedisPort),
  };
  for (const url of [urls.up, urls.raw, urls.nginx]) await waitHttp(url);
  for (const url of [urls.gateway, urls.gatewayRedis]) await waitHttp(`${url}/health`);
  return { identity, upstream, raw, gateway, gatewayRedis, urls };
}

/** Each measured proxy alone on the last core; the load, the upstream, identity and Redis on the others. */
function pinAll(started: Started, dir: string): void {
  pin(MEASURED_CPU, [started.raw.pid!, started.gateway.pid!, started.gatewayRedis.pid!, ...nginxPids(dir)]);
  const redisServers = spawnSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' }).stdout;
  pin(LOAD_CPUS, [
    started.upstream.pid!,
    started.identity.pid!,
    ...redisServers.split('\n').filter(Boolean).map(Number),
  ]);
}

/** The rows, measured in turns, and the ratios of (d) to (b) and (c). */
async function measureRows(started: Started, dir: string, auth: Record<string, string>): Promise<[Row, Row]> {
  const { urls } = started;
  console.log(
    `\n${CONNECTIONS} connections, ${SECONDS} s per row in ${ROUNDS} interleaved rounds, wrk -t1, loopback; CPU of the measured process only;` +
      ` measured process on CPU ${MEASURED_CPU}, wrk, upstream, identity and Redis on CPU ${LOAD_CPUS};` +
      ` gateway from ${GATEWAY.at(-1)}\n`,
  );
  const [, b, c, d, dr] = (await measureAll([
    { name: '(a) upstream alone', url: `${urls.up}${PATH}`, pids: [started.upstream.pid!] },
    { name: '(b) raw node:http proxy', url: `${urls.raw}${PATH}`, pids: [started.raw.pid!] },
    { name: '(c) nginx, upstream keepalive', url: `${urls.nginx}${PATH}`, pids: nginxPids(dir) },
    {
      name: '(d) gateway: key, gate, limit (mem)',
      url: `${urls.gateway}${PATH}`,
      pids: [started.gateway.pid!],
      headers: auth,
    },
    {
      name: '(d) gateway: key, gate, limit (redis)',
      url: `${urls.gatewayRedis}${PATH}`,
      pids: [started.gatewayRedis.pid!],
      headers: auth,
    },
    {
      name: '    gateway express path (public)',
      url: `${urls.gateway}/v1/catalog`,
      pids: [started.gateway.pid!],
    },
  ])) as [Row, Row, Row, Row, Row, Row];
  console.log(
    `\nd/b throughput ${(d.rps / b.rps).toFixed(2)}, CPU ${(d.cpuUs / b.cpuUs).toFixed(2)};` +
      ` d/c throughput ${(d.rps / c.rps).toFixed(2)}, CPU ${(d.cpuUs / c.cpuUs).toFixed(2)};` +
      ` d(redis)/b throughput ${(dr.rps / b.rps).toFixed(2)}`,
  );
  console.log('target: (d) at least as fast as (b), the raw node:http proxy: d/b ≥ 1.0');
  console.log(`  ${verdict('(d) memory buckets', d, b)}`);
  console.log(`  ${verdict('(d) Redis buckets', dr, b)}`);
  console.log(cpuBeside(d, dr, b, c));
  return [d, dr];
}

async function main(): Promise<void> {
  for (const tool of ['wrk', 'nginx']) {
    if (spawnSync('which', [tool]).status !== 0)
      throw new Error(`${tool} is missing: apt-get install -y wrk nginx-light`);
  }
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const ground = await startTestGround('bench_gateway');
  const { namespace } = ground;
  const smtp = await startSmtp();
  let bus: Bus | undefined;
  try {
    const started = await startAll(dir, ground, smtp, children);
    pinAll(started, dir);
    const key = await realKey(started.urls.gateway, smtp);
    const [d, dr] = await measureRows(started, dir, { 'x-api-key': key.key });
    bus = await createNatsBus({ url: TEST_NATS_URL, name: 'bench', namespace });
    const keys = await filledKeyCache(bus, key.key);
    printLayers(await layers(keys, key.key, namespace), d, dr);
    const perSecond = cacheVerificationsPerSecond(keys, key.key);
    console.log(
      `key verifications from the cache: ${(perSecond / 1e6).toFixed(2)} M/s (one core, SHA-256 of the key included)`,
    );
    const ms = await revocationMs([started.urls.gateway, started.urls.gatewayRedis], key);
    console.log(
      `revocation applied on both gateway replicas after ${ms.toFixed(0)} ms (outbox relay + NATS fan-out)`,
    );
  } finally {
    if (existsSync(join(dir, 'nginx.pid'))) spawnSync('nginx', ['-c', join(dir, 'nginx.conf'), '-s', 'stop']);
    for (const child of children) child.kill('SIGTERM');
    await bus?.close();
    await ground.close();
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
