import { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@meridian/observability';
import { decide, type BucketPolicy, type RateDecision } from '../domain/token-bucket.js';
import { MemoryRateLimiter, type HeldToken, type RateLimiter, type WithinDecision } from './rate-limiter.js';

/** Refill on Redis's clock, so replicas with skewed clocks agree. Shared head of both scripts. */
const REFILL = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if (tokens == nil or ts == nil) and KEYS[2] and KEYS[2] ~= KEYS[1] then
  state = redis.call('HMGET', KEYS[2], 'tokens', 'ts')
  tokens = tonumber(state[1])
  ts = tonumber(state[2])
end
if tokens == nil or ts == nil then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
end
`;

const STORE = `
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
`;

/**
 * The token bucket of domain/token-bucket.ts as one atomic script: read, refill, take, write and
 * expire in a single round trip. Returns {allowed, tokens as a string} because Redis truncates
 * Lua numbers to integers.
 */
const TAKE_SCRIPT = `${REFILL}
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
${STORE}
return {allowed, tostring(tokens)}
`;

/**
 * retire of domain/token-bucket.ts: KEYS[1] the revoked key's bucket, KEYS[2] the account's
 * retired-keys bucket, which takes the lower level of the two.
 */
const RETIRE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function level(key)
  local state = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if tokens == nil or ts == nil then return nil end
  return math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
end
local spent = level(KEYS[1])
if spent == nil then return 0 end
local retired = level(KEYS[2])
local tokens = spent
if retired ~= nil and retired < tokens then tokens = retired end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[2], math.ceil((capacity - tokens) / per_ms) + 1000)
return 1
`;

/**
 * takeWithin: the take of TAKE_SCRIPT on KEYS[1] (a new bucket starting from KEYS[2]) with
 * ARGV[1..2], then, only if it allowed, on the account-wide KEYS[3] with ARGV[3..4], on one clock
 * reading. Returns {allowed, tokens} or {allowed, tokens, account allowed, account tokens}.
 */
const TAKE_WITHIN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function take(key, from, capacity, per_ms)
  local state = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if (tokens == nil or ts == nil) and from ~= key then
    state = redis.call('HMGET', from, 'tokens', 'ts')
    tokens = tonumber(state[1])
    ts = tonumber(state[2])
  end
  if tokens == nil or ts == nil then
    tokens = capacity
  else
    tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
  end
  local allowed = 0
  if tokens >= 1 then
    tokens = tokens - 1
    allowed = 1
  end
  redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', key, math.ceil((capacity - tokens) / per_ms) + 1000)
  return allowed, tokens
end
local allowed, tokens = take(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]))
if allowed == 0 then
  return {0, tostring(tokens)}
end
local account_allowed, account_tokens = take(KEYS[3], KEYS[3], tonumber(ARGV[3]), tonumber(ARGV[4]))
return {1, tostring(tokens), account_allowed, tostring(account_tokens)}
`;

/** returnToken of domain/token-bucket.ts. */
const GIVE_BACK_SCRIPT = `${REFILL}
tokens = math.min(capacity, tokens + 1)
${STORE}
return 1
`;

type BucketCommand<R> = (key: string, capacity: number, perMs: number) => Promise<R>;
type TwoBucketCommand<R> = (key: string, other: string, capacity: number, perMs: number) => Promise<R>;
type WithinCommand = (
  key: string,
  from: string,
  account: string,
  capacity: number,
  perMs: number,
  accountCapacity: number,
  accountPerMs: number,
) => Promise<[number, string] | [number, string, number, string]>;

/**
 * Buckets shared by every replica. ioredis sends each script by EVALSHA (EVAL once if Redis does
 * not know it yet). While Redis is not connected, or when a call fails, each replica uses its own
 * buckets rather than refusing paying callers or waiting for a reconnection: the limit is then
 * per replica until Redis answers again. Readiness does not depend on Redis for that reason; the
 * state is the gauge gateway_rate_limit_redis_up and a log line at each change.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimiter();
  private readonly takeCommand: TwoBucketCommand<[number, string]>;
  private readonly takeWithinCommand: WithinCommand;
  private readonly retireCommand: TwoBucketCommand<number>;
  private readonly giveBackCommand: BucketCommand<number>;
  /** undefined until the first connection attempt ends either way. */
  private up: boolean | undefined;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly logger: Logger,
    registry?: Registry,
  ) {
    this.redis = new Redis(url, {
      // A call never waits in a queue for a reconnection: it goes to the fallback at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
    });
    this.redis.on('ready', () => this.changed(true));
    this.redis.on('error', () => this.changed(this.shared));
    this.redis.on('close', () => this.changed(false));
    // The second key of a take is the bucket a new one starts from (the first again when none).
    this.redis.defineCommand('takeToken', { numberOfKeys: 2, lua: TAKE_SCRIPT });
    this.redis.defineCommand('takeWithin', { numberOfKeys: 3, lua: TAKE_WITHIN_SCRIPT });
    this.redis.defineCommand('retireBucket', { numberOfKeys: 2, lua: RETIRE_SCRIPT });
    this.redis.defineCommand('giveBackToken', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    const commands = this.redis as unknown as {
      takeToken: TwoBucketCommand<[number, string]>;
      takeWithin: WithinCommand;
      giveBackToken: BucketCommand<number>;
      retireBucket: TwoBucketCommand<number>;
    };
    this.takeCommand = commands.takeToken.bind(this.redis);
    this.takeWithinCommand = commands.takeWithin.bind(this.redis);
    this.retireCommand = commands.retireBucket.bind(this.redis);
    this.giveBackCommand = commands.giveBackToken.bind(this.redis);
    if (registry) this.gauge(registry);
  }

  /** Whether the buckets are the shared ones right now. */
  get shared(): boolean {
    return this.redis.status === 'ready';
  }

  async take(bucket: string, policy: BucketPolicy, startFrom?: string): Promise<RateDecision> {
    if (!this.shared) return this.fallback.take(bucket, policy, startFrom);
    const key = `${this.prefix}${bucket}`;
    const from = startFrom === undefined ? key : `${this.prefix}${startFrom}`;
    return (await this.takeShared(key, policy, from)) ?? this.fallback.take(bucket, policy, startFrom);
  }

  async takeWithin(
    bucket: string,
    policy: BucketPolicy,
    startFrom: string | undefined,
    account: string,
    accountPolicy: BucketPolicy,
  ): Promise<WithinDecision> {
    const local = () => this.fallback.takeWithin(bucket, policy, startFrom, account, accountPolicy);
    if (!this.shared) return local();
    const key = `${this.prefix}${bucket}`;
    const from = startFrom === undefined ? key : `${this.prefix}${startFrom}`;
    try {
      const reply = await this.takeWithinCommand(
        key,
        from,
        `${this.prefix}${account}`,
        policy.capacity,
        policy.refillPerMs,
        accountPolicy.capacity,
        accountPolicy.refillPerMs,
      );
      const own = decide(reply[0] === 1, Number(reply[1]), policy);
      if (reply.length === 2) return { own };
      return { own, account: decide(reply[2] === 1, Number(reply[3]), accountPolicy) };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limit falls back to this replica');
      return local();
    }
  }

  /** In both stores: this replica's buckets serve while Redis is away, and may hold the key's. */
  async retire(bucket: string, into: string, policy: BucketPolicy): Promise<void> {
    this.fallback.retire(bucket, into, policy);
    if (!this.shared) return;
    await this.retireCommand(
      `${this.prefix}${bucket}`,
      `${this.prefix}${into}`,
      policy.capacity,
      policy.refillPerMs,
    ).catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'retiring a key bucket failed'),
    );
  }

  /**
   * The give-back goes to the store that answered the take: a token taken from Redis is not put
   * into this replica's buckets if Redis drops meanwhile (Redis refills it on its own), and one
   * taken here while Redis was away is not added to the shared bucket when it comes back.
   */
  async hold(bucket: string, policy: BucketPolicy): Promise<HeldToken> {
    if (!this.shared) return this.fallback.hold(bucket, policy);
    const key = `${this.prefix}${bucket}`;
    const decision = await this.takeShared(key, policy);
    if (!decision) return this.fallback.hold(bucket, policy);
    return { decision, giveBack: () => this.giveBackShared(key, policy) };
  }

  /** undefined when Redis did not answer: the caller falls back to this replica's buckets. */
  private async takeShared(key: string, policy: BucketPolicy, from = key): Promise<RateDecision | undefined> {
    try {
      const [allowed, tokens] = await this.takeCommand(key, from, policy.capacity, policy.refillPerMs);
      return decide(allowed === 1, Number(tokens), policy);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limit falls back to this replica');
      return undefined;
    }
  }

  private giveBackShared(key: string, policy: BucketPolicy): void {
    this.giveBackCommand(key, policy.capacity, policy.refillPerMs).catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'giving a token back failed'),
    );
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Logs each change once, not each failed reconnection attempt. */
  private changed(up: boolean): void {
    if (this.up === up) return;
    const first = this.up === undefined;
    this.up = up;
    if (!up) this.logger.warn('Redis unreachable: each replica limits rates with its own buckets');
    else if (!first) this.logger.info('Redis answers again: rate limits are shared by the replicas');
  }

  private gauge(registry: Registry): void {
    const gauge: Gauge = new Gauge({
      name: 'gateway_rate_limit_redis_up',
      help: '1 while the rate-limit buckets are shared through Redis, 0 while each replica uses its own',
      registers: [registry],
      collect: () => gauge.set(this.shared ? 1 : 0),
    });
  }
}
