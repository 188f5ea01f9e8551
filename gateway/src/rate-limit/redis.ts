import { Redis } from 'ioredis';
import type { Plan } from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
import { decide, planPolicy, type RateDecision } from '../domain/token-bucket.js';
import { MemoryRateLimiter, type RateLimiter } from './limiter.js';

/**
 * The token bucket of domain/token-bucket.ts as one atomic script: read, refill, take, write and
 * expire in a single round trip, on Redis's clock so replicas with skewed clocks agree.
 * Returns {allowed, tokens as a string} because Redis truncates Lua numbers to integers.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
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
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
return {allowed, tostring(tokens)}
`;

type TakeCommand = (key: string, capacity: number, perMs: number) => Promise<[number, string]>;

/**
 * Buckets shared by every replica. ioredis sends the script by EVALSHA (EVAL once if Redis
 * does not know it yet). When Redis fails, each replica falls back to its own buckets rather than
 * refusing paying callers: the limit is then per replica until Redis answers again.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly takeCommand: TakeCommand;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly limits?: Record<Plan, number>,
  ) {
    this.redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
    });
    this.redis.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'redis error'));
    this.redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.fallback = new MemoryRateLimiter(limits);
    const command = (this.redis as unknown as { takeToken: TakeCommand }).takeToken;
    this.takeCommand = command.bind(this.redis);
  }

  async take(bucket: string, plan: Plan): Promise<RateDecision> {
    const policy = planPolicy(plan, this.limits);
    try {
      const [allowed, tokens] = await this.takeCommand(
        `${this.prefix}${bucket}`,
        policy.capacity,
        policy.refillPerMs,
      );
      return decide(allowed === 1, Number(tokens), policy);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limit falls back to this replica');
      return this.fallback.take(bucket, plan);
    }
  }

  async ready(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
