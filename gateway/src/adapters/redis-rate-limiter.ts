import { Redis } from 'ioredis';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from '@meridian/observability';
import { decide, type BucketPolicy, type RateDecision } from '../domain/token-bucket.js';
import { grantLease, leaseLive, MAX_LEASE, spendLease, type Lease } from '../domain/token-lease.js';
import { GIVE_BACK_SCRIPT, RETIRE_SCRIPT, TAKE_BATCH_SCRIPT, TAKE_SCRIPT } from './redis-scripts.js';
import { MemoryRateLimiter, type HeldToken, type RateLimiter, type WithinDecision } from './rate-limiter.js';

type BucketCommand<R> = (key: string, capacity: number, perMs: number) => Promise<R>;
type TwoBucketCommand<R> = (key: string, other: string, capacity: number, perMs: number) => Promise<R>;
/**
 * numberOfKeys, then the keys, the largest lease, the policies and the calls' policy indexes
 * (ioredis flattens the arrays).
 */
type BatchCommand = (
  numberOfKeys: number,
  keys: string[],
  maxLease: number,
  policies: number[],
  which: number[],
) => Promise<string>;

/** A data call's takeWithin waiting for its batch. */
interface PendingWithin {
  bucket: string;
  policy: BucketPolicy;
  startFrom: string | undefined;
  account: string;
  accountPolicy: BucketPolicy;
  resolve: (decision: WithinDecision) => void;
}

/** The flags of a call's field in a batch: it asks a lease of its key's bucket, of its account's. */
const WANT_OWN_LEASE = 2 ** 20;
const WANT_ACCOUNT_LEASE = 2 ** 21;

/** Takes per script call at most: bounds how long one batch holds Redis. */
const MAX_BATCH = 256;

/**
 * Buckets shared by every replica. ioredis sends each script by EVALSHA (EVAL once if Redis does
 * not know it yet). While Redis is not connected, or when a call fails, each replica uses its own
 * buckets rather than refusing paying callers or waiting for a reconnection: the limit is then
 * per replica until Redis answers again. Readiness does not depend on Redis for that reason; the
 * state is the gauge gateway_rate_limit_redis_up and a log line at each change.
 *
 * The data path's takeWithin calls are batched: those made before the event loop next checks
 * (setImmediate, so a lone call waits for no timer) go to Redis as one script call that applies
 * them in their order, atomically, and answers each. Under load one round trip and one command's
 * cost serve many calls; the limits stay as exact as with a call each. A batch whose script call
 * fails falls back as a whole to this replica's buckets, as a single call would. A take of a
 * bucket with many tokens left also takes a few more for this replica's next calls of it (a
 * lease, domain/token-lease.ts): a key busy on one replica then costs a script call per lease,
 * not per call, and the replicas together still never admit more than the bucket holds.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimiter();
  private readonly takeCommand: TwoBucketCommand<[number, string]>;
  private readonly takeBatchCommand: BatchCommand;
  private readonly retireCommand: TwoBucketCommand<number>;
  private readonly giveBackCommand: BucketCommand<number>;
  /** undefined until the first connection attempt ends either way. */
  private up: boolean | undefined;
  private pending: PendingWithin[] = [];
  private batchSize: Histogram | undefined;
  /** This replica's leases, by Redis key; expired ones are swept now and then. */
  private readonly leases = new Map<string, Lease>();
  private readonly sweep: NodeJS.Timeout;
  /** Data calls answered from a lease, for the metric. */
  private leaseCalls = 0;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly logger: Logger,
    registry?: Registry,
    /** The largest lease a take asks for; 1 takes single tokens. */
    private readonly maxLease = MAX_LEASE,
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
    // Three keys a call: the number of keys is the script call's first argument.
    this.redis.defineCommand('takeBatch', { lua: TAKE_BATCH_SCRIPT });
    this.redis.defineCommand('retireBucket', { numberOfKeys: 2, lua: RETIRE_SCRIPT });
    this.redis.defineCommand('giveBackToken', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    const commands = this.redis as unknown as {
      takeToken: TwoBucketCommand<[number, string]>;
      takeBatch: BatchCommand;
      giveBackToken: BucketCommand<number>;
      retireBucket: TwoBucketCommand<number>;
    };
    this.takeCommand = commands.takeToken.bind(this.redis);
    this.takeBatchCommand = commands.takeBatch.bind(this.redis);
    this.retireCommand = commands.retireBucket.bind(this.redis);
    this.giveBackCommand = commands.giveBackToken.bind(this.redis);
    if (registry) this.gauge(registry);
    this.sweep = setInterval(() => this.sweepLeases(Date.now()), 5_000).unref();
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

  takeWithin(
    bucket: string,
    policy: BucketPolicy,
    startFrom: string | undefined,
    account: string,
    accountPolicy: BucketPolicy,
  ): WithinDecision | Promise<WithinDecision> {
    if (!this.shared) return this.fallback.takeWithin(bucket, policy, startFrom, account, accountPolicy);
    const now = Date.now();
    const own = this.leases.get(`${this.prefix}${bucket}`);
    const shared = this.leases.get(`${this.prefix}${account}`);
    if (leaseLive(own, policy, now) && leaseLive(shared, accountPolicy, now)) {
      this.leaseCalls++;
      return { own: spendLease(own), account: spendLease(shared) };
    }
    return new Promise((resolve) => {
      if (this.pending.push({ bucket, policy, startFrom, account, accountPolicy, resolve }) === 1) {
        setImmediate(this.flush);
      }
    });
  }

  /** Sends the takeWithin calls made since the last flush, MAX_BATCH to a script call. */
  private readonly flush = (): void => {
    const pending = this.pending;
    this.pending = [];
    for (let start = 0; start < pending.length; start += MAX_BATCH) {
      this.sendBatch(
        start === 0 && pending.length <= MAX_BATCH ? pending : pending.slice(start, start + MAX_BATCH),
      );
    }
  };

  private sendBatch(batch: PendingWithin[]): void {
    const n = batch.length;
    const now = Date.now();
    this.batchSize?.observe(n);
    const keys = new Array<string>(n * 3);
    const which = new Array<number>(n);
    const policies: number[] = [];
    const index = new Map<BucketPolicy, number>();
    const indexOf = (policy: BucketPolicy) => {
      let i = index.get(policy);
      if (i === undefined) {
        i = index.size;
        index.set(policy, i);
        policies.push(policy.capacity, policy.refillPerMs);
      }
      return i;
    };
    const prefix = this.prefix;
    for (let i = 0; i < n; i++) {
      const call = batch[i]!;
      const key = `${prefix}${call.bucket}`;
      keys[i * 3] = key;
      keys[i * 3 + 1] = call.startFrom === undefined ? key : `${prefix}${call.startFrom}`;
      keys[i * 3 + 2] = `${prefix}${call.account}`;
      // A lease is asked for only where this replica holds none to spend, so none is thrown away.
      which[i] =
        indexOf(call.policy) * 1024 +
        indexOf(call.accountPolicy) +
        (leaseLive(this.leases.get(keys[i * 3]!), call.policy, now) ? 0 : WANT_OWN_LEASE) +
        (leaseLive(this.leases.get(keys[i * 3 + 2]!), call.accountPolicy, now) ? 0 : WANT_ACCOUNT_LEASE);
    }
    this.takeBatchCommand(n * 3, keys, this.maxLease, policies, which).then(
      (reply) => {
        const fields = reply.split(' ');
        for (let i = 0; i < n; i++) {
          const call = batch[i]!;
          const o = i * 5;
          const code = fields[o];
          const ownLevel = Number(fields[o + 1]);
          const own = decide(code !== '0', ownLevel, call.policy);
          if (code === '0') {
            call.resolve({ own });
            continue;
          }
          const accountLevel = Number(fields[o + 2]);
          this.lease(keys[i * 3]!, Number(fields[o + 3]), ownLevel, call.policy, now);
          if (code === '3')
            this.lease(keys[i * 3 + 2]!, Number(fields[o + 4]), accountLevel, call.accountPolicy, now);
          call.resolve({ own, account: decide(code === '3', accountLevel, call.accountPolicy) });
        }
      },
      (err: unknown) => {
        this.logger.warn({ err: (err as Error).message, calls: n }, 'rate limit falls back to this replica');
        for (const call of batch) {
          call.resolve(
            this.fallback.takeWithin(
              call.bucket,
              call.policy,
              call.startFrom,
              call.account,
              call.accountPolicy,
            ),
          );
        }
      },
    );
  }

  private lease(key: string, granted: number, level: number, policy: BucketPolicy, now: number): void {
    const lease = grantLease(this.leases.get(key), granted, level, policy, now);
    if (lease) this.leases.set(key, lease);
    else this.leases.delete(key);
  }

  private sweepLeases(now: number): void {
    for (const [key, lease] of this.leases) if (lease.expiresAt <= now) this.leases.delete(key);
  }

  /** In both stores: this replica's buckets serve while Redis is away, and may hold the key's. */
  async retire(bucket: string, into: string, policy: BucketPolicy): Promise<void> {
    // What this replica leased of a revoked key's bucket is spent with it.
    this.leases.delete(`${this.prefix}${bucket}`);
    await this.fallback.retire(bucket, into, policy);
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
    clearInterval(this.sweep);
    this.leases.clear();
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
    const leased: Counter = new Counter({
      name: 'gateway_rate_limit_lease_calls_total',
      help: 'Data calls whose tokens came from a lease this replica held (no Redis round trip)',
      registers: [registry],
      collect: () => {
        leased.reset();
        leased.inc(this.leaseCalls);
      },
    });
    this.batchSize = new Histogram({
      name: 'gateway_rate_limit_redis_batch_calls',
      help: 'Data calls whose rate limits one Redis script call took (takeWithin batches)',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    });
  }
}
