/**
 * The in-process side of the gateway bench (proxy.ts): the CPU of each layer of the data path
 * alone, key verifications from the cache, a real key through the gateway, and the time a
 * revocation takes to reach every replica.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@meridian/bus';
import { catalogFor, type Caller, type KeyVerifyReply } from '@meridian/contracts';
import { assertionKey } from '@meridian/http-kit';
import { createLogger } from '@meridian/observability';
import { linkIn, type startSmtp } from '@meridian/test-peers';
import { identityCaches } from '../../src/adapters/identity.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/adapters/rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter.js';
import type { VerifiedCache } from '../../src/adapters/verified-cache.js';
import { dataTarget, gateRefusal } from '../../src/domain/data-route.js';
import { keyFormatValid } from '../../src/domain/key-format.js';
import { planPolicy, rateLimitHeaders } from '../../src/domain/token-bucket.js';
import { AssertionSigner } from '../../src/edge/assertion.js';
import { CONNECTIONS, type Row } from './load.js';

/** The catalogue of INGEST_MODE=replay, the default. */
const REPLAY = catalogFor('replay');
type Smtp = Awaited<ReturnType<typeof startSmtp>>;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PATH = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';

/** A real account and key through the gateway: sign-up, the mailed token, sign-in, POST /v1/keys. */
export async function realKey(
  gateway: string,
  smtp: Smtp,
): Promise<{ key: string; id: string; cookie: string }> {
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
export async function filledKeyCache(bus: Bus, key: string): Promise<VerifiedCache<KeyVerifyReply>> {
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

export function cacheVerificationsPerSecond(keys: VerifiedCache<KeyVerifyReply>, key: string): number {
  const n = 1_000_000;
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
export async function layers(keys: VerifiedCache<KeyVerifyReply>, key: string, namespace: string) {
  const reply = keys.verify(key) as { ok: true; value: KeyVerifyReply };
  const policy = planPolicy('free', { free: 100_000_000, basic: 60, pro: 300, ultra: 1200 });
  const path = PATH.slice(0, PATH.indexOf('?'));
  const memory = new MemoryRateLimiter();
  const redis = new RedisRateLimiter(
    REDIS_URL,
    `bench:${namespace}:layers:`,
    createLogger('bench', { level: 'silent' }),
  );
  const signer = new AssertionSigner(assertionKey(randomUUID() + randomUUID()));
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

export function printLayers(result: Awaited<ReturnType<typeof layers>>, d: Row, dr: Row): void {
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

export async function revocationMs(
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
