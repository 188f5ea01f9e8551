import type { CloudEvent, RpcReply } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';

export interface Closable {
  close(): Promise<void>;
}

/** What a request handler knows besides the body; header names are lower case. */
export interface RpcContext {
  headers: Record<string, string>;
}

export type RpcHandler<Req = unknown, Res = unknown> = (req: Req, ctx: RpcContext) => Promise<RpcReply<Res>>;

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /**
   * `workqueue`: a job queue, each message removed once acknowledged (JetStream's WorkQueue
   * retention; set at creation). Default `limits`, as every event stream. The in-process bus keeps
   * every message either way: one durable consumer still hands each message to one worker.
   */
  retention?: 'limits' | 'workqueue';
}

export interface ConsumeContext {
  deliveryCount: number;
  headers: Record<string, string>;
}

export interface ConsumerSpec<T = unknown> {
  /** Stream name without namespace, e.g. 'IDENTITY'. */
  stream: string;
  /** '<consumer-service>__<handler>'; frozen, because the server keeps the position under it. */
  durable: string;
  filterSubject: string;
  /** Resolve to acknowledge; throw to have the message delivered again after the backoff. */
  handler: (event: CloudEvent<T>, ctx: ConsumeContext) => Promise<void>;
  /** Deliveries before the message goes to the dead-letter subject; default 5. */
  maxDeliver?: number;
  /** Delay before delivery n+1 after delivery n failed; the last value repeats; default [1000, 5000, 30000]. */
  backoffMs?: number[];
  /** How long a delivery may stay unsettled before the server assumes the consumer died; default 30000. */
  ackWaitMs?: number;
  /**
   * Messages one client pulls ahead (NATS only); default 8. A job queue whose jobs are long takes
   * 1, so that replicas share the jobs instead of one replica buffering them.
   */
  maxMessages?: number;
}

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface PublishOptions {
  /** Defaults to event.type. */
  subject?: string;
  headers?: Record<string, string>;
}

export type EventHandler<T> = (event: CloudEvent<T>) => Promise<void> | void;

export interface Bus {
  readonly kind: 'nats' | 'memory';
  serve<Req, Res>(subject: string, queue: string, handler: RpcHandler<Req, Res>): Promise<Closable>;
  /** Never throws for transport trouble: no server or no answer in time resolves to a 503 problem. */
  request<Res>(subject: string, payload: unknown, opts?: RequestOptions): Promise<RpcReply<Res>>;
  /** Creates the stream or updates its subjects; safe to call from every replica at start. */
  ensureStream(spec: StreamSpec): Promise<void>;
  /** Rejects when no stream captures the subject; the event id deduplicates retries. */
  publish(event: CloudEvent, opts?: PublishOptions): Promise<void>;
  consume<T>(spec: ConsumerSpec<T>): Promise<Closable>;
  /** Non-durable fan-out to every subscriber of every replica (cache invalidation and the like). */
  subscribe<T>(subject: string, handler: EventHandler<T>): Promise<Closable>;
  /**
   * Fans `event` out at once to the subscribers of every replica, storing it nowhere (a subject
   * under `notice.`, which no stream captures): a replica not listening then never hears of it.
   */
  notify(event: CloudEvent, opts?: PublishOptions): Promise<void>;
  /**
   * Called each time the connection comes back after it was lost. Subscriptions resume, but what
   * was published to them during the gap is gone (core NATS keeps nothing), so a cache fed by
   * them must assume it missed something. The in-process bus never reconnects.
   */
  onReconnect(listener: () => void): Closable;
  /** Throws when the bus is not usable (for /ready). */
  ping(): Promise<void>;
  /** Stops consumers and subscriptions after the work in flight, then disconnects. */
  close(): Promise<void>;
}

/** Options both implementations understand. */
export interface BusOptions {
  metrics?: Metrics;
  logger?: Logger;
}

export const DEFAULTS = {
  requestTimeoutMs: 5000,
  maxDeliver: 5,
  backoffMs: [1000, 5000, 30000],
  ackWaitMs: 30000,
  maxMessages: 8,
  /** JetStream's default duplicate window, mirrored by the in-process streams. */
  duplicateWindowMs: 120_000,
} as const;

/** Headers put on a message moved to the dead-letter subject. */
export const DEAD_LETTER_HEADERS = {
  subject: 'x-dead-letter-subject',
  stream: 'x-dead-letter-stream',
  streamSequence: 'x-dead-letter-stream-seq',
  deliveries: 'x-dead-letter-deliveries',
  durable: 'x-dead-letter-durable',
  error: 'x-dead-letter-error',
} as const;
