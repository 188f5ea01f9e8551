import { Redis } from 'ioredis';
import { TtlLru } from '../domain/ttl-lru.js';

/**
 * How many times identity ended every session of an account at once (a password reset), as the
 * gateway that carried the reset was told: a session cached with a lower count is no longer
 * vouched for and is asked about again. Kept longer than any session stays cached.
 */
export interface SessionEpochs {
  /** The account's count, 0 when none is known; undefined when the store cannot say (ask identity). */
  current(accountId: string): Promise<number | undefined>;
  /** Raises the account's count to `epoch` (never lowers it); resolves once every replica reads it. */
  raise(accountId: string, epoch: number): Promise<void>;
  close(): Promise<void>;
}

/** One replica's: exact for a single gateway (no REDIS_URL). */
export class MemorySessionEpochs implements SessionEpochs {
  private readonly epochs: TtlLru<number>;

  constructor(keepMs: number, maxAccounts = 100_000) {
    this.epochs = new TtlLru(maxAccounts, keepMs);
  }

  async current(accountId: string): Promise<number> {
    return this.epochs.get(accountId) ?? 0;
  }

  async raise(accountId: string, epoch: number): Promise<void> {
    if (epoch > (this.epochs.get(accountId) ?? 0)) this.epochs.set(accountId, epoch);
  }

  async close(): Promise<void> {}
}

/** Sets the count only upward, and keeps it `ARGV[2]` ms from the last raise. */
const RAISE_SCRIPT = `
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > now then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

/**
 * Every replica's, in the Redis of the rate limits. A replica that cannot read it answers
 * undefined, so the session is asked about again: while Redis is away sessions cost identity a
 * lookup per request rather than being vouched for from memory past a reset.
 */
export class RedisSessionEpochs implements SessionEpochs {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly keepMs: number,
  ) {
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500 });
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('raiseEpoch', { numberOfKeys: 1, lua: RAISE_SCRIPT });
  }

  private key(accountId: string): string {
    return `${this.prefix}sessions-epoch:${accountId}`;
  }

  async current(accountId: string): Promise<number | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    try {
      return Number((await this.redis.get(this.key(accountId))) ?? 0);
    } catch {
      return undefined;
    }
  }

  async raise(accountId: string, epoch: number): Promise<void> {
    const raiseEpoch = (this.redis as unknown as { raiseEpoch: (...args: unknown[]) => Promise<unknown> })
      .raiseEpoch;
    await raiseEpoch.call(this.redis, this.key(accountId), String(epoch), String(this.keepMs));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
