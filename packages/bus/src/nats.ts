import { STREAMS, type CloudEvent, type RpcReply } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import {
  connect,
  ErrorCode,
  NatsError,
  RetentionPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type Msg,
  type NatsConnection,
} from 'nats';
import { decodeEvent, errorMessage, outgoingHeaders, withIncomingTrace } from './codec.js';
import { startNatsConsumer, type ConsumerDeps } from './nats-consumer.js';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers.js';
import { natsNames, type NatsNames } from './nats-names.js';
import { serviceUnavailable } from './problems.js';
import { answerRequest, decodeReply } from './rpc.js';
import { assertNoticeSubject, assertPublishSubject, assertRpcSubject } from './subjects.js';
import {
  DEFAULTS,
  type Bus,
  type BusOptions,
  type Closable,
  type ConsumerSpec,
  type EventHandler,
  type PublishOptions,
  type RequestOptions,
  type RpcHandler,
  type StreamSpec,
} from './types.js';

export interface NatsBusOptions extends BusOptions {
  url: string;
  /** Connection name shown by the server (service name and replica). */
  name: string;
  /** Prefix of every subject and stream name, so parallel test files never meet; unset in production. */
  namespace?: string;
}

const STREAM_NAME_IN_USE = 10058;
const PING_TIMEOUT_MS = 2000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function createNatsBus(options: NatsBusOptions): Promise<Bus> {
  const names = natsNames(options.namespace);
  // Reconnect forever: a NATS restart must not take every service down with it.
  const nc = await connect({ servers: options.url, name: options.name, maxReconnectAttempts: -1 });
  const jsm = await nc.jetstreamManager();
  return new NatsBus(nc, jsm, nc.jetstream(), names, options);
}

class NatsBus implements Bus {
  readonly kind = 'nats' as const;
  private readonly logger: Logger | undefined;
  private readonly metrics: Metrics | undefined;
  private readonly open = new Set<Closable>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly reconnectListeners = new Set<() => void>();
  private deadLetterStream: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly names: NatsNames,
    options: NatsBusOptions,
  ) {
    this.logger = options.logger;
    this.metrics = options.metrics;
    void this.watchStatus();
  }

  async serve<Req, Res>(subject: string, queue: string, handler: RpcHandler<Req, Res>): Promise<Closable> {
    assertRpcSubject(subject);
    const sub = this.nc.subscribe(this.names.subject(subject), {
      queue,
      callback: (err, msg) => {
        if (err) this.logger?.error({ err, subject }, 'rpc subscription failed');
        else this.track(this.answer(subject, msg, handler as RpcHandler));
      },
    });
    // Once serve() resolves the server knows the subscription, so a request from elsewhere finds it.
    await this.nc.flush();
    return this.register(async () => {
      if (!sub.isClosed()) await sub.drain();
    });
  }

  private async answer(subject: string, msg: Msg, handler: RpcHandler): Promise<void> {
    const body = decoder.decode(msg.data);
    const reply = await answerRequest(handler, body, fromNatsHeaders(msg.headers), {
      logger: this.logger,
      subject,
    });
    this.count('serve', subject, reply.ok ? 'ok' : 'problem');
    if (msg.reply && !this.nc.isClosed()) msg.respond(encoder.encode(JSON.stringify(reply)));
  }

  async request<Res>(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<RpcReply<Res>> {
    assertRpcSubject(subject);
    const headers = toNatsHeaders(outgoingHeaders(opts.headers));
    const timeout = opts.timeoutMs ?? DEFAULTS.requestTimeoutMs;
    const body = encoder.encode(JSON.stringify(payload ?? null));
    const deadline = Date.now() + timeout;
    const askUntil = Math.min(deadline, Date.now() + NO_RESPONDERS_WAIT_MS);
    for (let attempt = 0; ; attempt++) {
      try {
        const left = Math.max(1, deadline - Date.now());
        const msg = await this.nc.request(this.names.subject(subject), body, { timeout: left, headers });
        this.count('request', subject, 'ok');
        return decodeReply<Res>(decoder.decode(msg.data), this.logger, subject);
      } catch (err) {
        const reason = transportFailure(err);
        // No responder is what a restarting or rolling peer looks like for a moment: asked again
        // within the same budget, the caller sees a 503 only when the peer stays away.
        const pause = NO_RESPONDERS_PAUSE_MS * 2 ** attempt;
        if (reason === 'no_responders' && Date.now() + pause < askUntil) {
          await new Promise((r) => setTimeout(r, pause));
          continue;
        }
        this.count('request', subject, reason);
        this.logger?.warn({ subject, reason, err: errorMessage(err) }, 'rpc request failed');
        return { ok: false, problem: serviceUnavailable(subject, reason.replace('_', ' ')) };
      }
    }
  }

  async ensureStream(spec: StreamSpec): Promise<void> {
    const name = this.names.stream(spec.name);
    const subjects = spec.subjects.map((s) => this.names.subject(s));
    try {
      // Adding a stream that exists with the same configuration succeeds, so replicas may race here.
      await this.jsm.streams.add({
        name,
        subjects,
        ...(spec.retention === 'workqueue' ? { retention: RetentionPolicy.Workqueue } : {}),
      });
      return;
    } catch (err) {
      if (!(err instanceof NatsError) || err.api_error?.err_code !== STREAM_NAME_IN_USE) throw err;
    }
    const info = await this.jsm.streams.info(name);
    if (sameSet(info.config.subjects ?? [], subjects)) return;
    await this.jsm.streams.update(name, { ...info.config, subjects });
  }

  async publish(event: CloudEvent, opts: PublishOptions = {}): Promise<void> {
    const subject = opts.subject ?? event.type;
    assertPublishSubject(subject);
    const headers = toNatsHeaders(outgoingHeaders(opts.headers, event.traceparent));
    const data = encoder.encode(JSON.stringify(event));
    try {
      await this.js.publish(this.names.subject(subject), data, { msgID: event.id, headers });
      this.count('publish', subject, 'ok');
    } catch (err) {
      this.count('publish', subject, 'error');
      const why = isNoResponders(err) ? 'no stream captures it' : errorMessage(err);
      throw new Error(`Publishing ${event.type} to ${subject} failed: ${why}`, { cause: err });
    }
  }

  async notify(event: CloudEvent, opts: PublishOptions = {}): Promise<void> {
    const subject = opts.subject ?? event.type;
    assertNoticeSubject(subject);
    const headers = toNatsHeaders(outgoingHeaders(opts.headers, event.traceparent));
    // Core NATS: delivered to whoever listens now, kept by no stream.
    this.nc.publish(this.names.subject(subject), encoder.encode(JSON.stringify(event)), { headers });
    this.count('notify', subject, 'ok');
  }

  async consume<T>(spec: ConsumerSpec<T>): Promise<Closable> {
    const consumer = await startNatsConsumer(this.consumerDeps(), spec);
    return this.register(() => consumer.close());
  }

  private consumerDeps(): ConsumerDeps {
    return {
      js: this.js,
      jsm: this.jsm,
      names: this.names,
      logger: this.logger,
      metrics: this.metrics,
      ensureDeadLetterStream: () => this.ensureDeadLetterStream(),
    };
  }

  /** The bus owns the dead-letter stream: every consumer may need it, no service declares it. */
  private ensureDeadLetterStream(): Promise<void> {
    this.deadLetterStream ??= this.ensureStream(STREAMS.deadLetter).catch((err: unknown) => {
      this.deadLetterStream = undefined;
      throw err;
    });
    return this.deadLetterStream;
  }

  async subscribe<T>(subject: string, handler: EventHandler<T>): Promise<Closable> {
    const sub = this.nc.subscribe(this.names.subject(subject), {
      callback: (err, msg) => {
        if (err) this.logger?.error({ err, subject }, 'subscription failed');
        else this.track(this.deliver(msg, handler as EventHandler<unknown>));
      },
    });
    await this.nc.flush();
    return this.register(async () => {
      if (!sub.isClosed()) await sub.drain();
    });
  }

  private async deliver(msg: Msg, handler: EventHandler<unknown>): Promise<void> {
    const subject = this.names.unsubject(msg.subject);
    const decoded = decodeEvent(decoder.decode(msg.data));
    if (!decoded.ok) {
      this.count('subscribe', subject, 'invalid');
      this.logger?.warn({ subject, reason: decoded.error }, 'dropped a message that is not a CloudEvent');
      return;
    }
    try {
      await withIncomingTrace(fromNatsHeaders(msg.headers), () => handler(decoded.event));
      this.count('subscribe', subject, 'ok');
    } catch (err) {
      this.count('subscribe', subject, 'error');
      this.logger?.error({ err, subject, event_id: decoded.event.id }, 'subscriber failed');
    }
  }

  onReconnect(listener: () => void): Closable {
    this.reconnectListeners.add(listener);
    return { close: async () => void this.reconnectListeners.delete(listener) };
  }

  async ping(): Promise<void> {
    if (this.nc.isClosed() || this.nc.isDraining()) throw new Error('NATS connection is closed');
    await withTimeout(this.nc.flush(), PING_TIMEOUT_MS, 'NATS did not answer a ping');
    await withTimeout(this.jsm.getAccountInfo(), PING_TIMEOUT_MS, 'JetStream did not answer');
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await Promise.all([...this.open].map((c) => c.close()));
    await Promise.all(this.inflight);
    if (!this.nc.isClosed()) await this.nc.drain();
  }

  private register(close: () => Promise<void>): Closable {
    const closable: Closable = {
      close: async () => {
        if (!this.open.delete(closable)) return;
        await close();
      },
    };
    this.open.add(closable);
    return closable;
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => this.logger?.error({ err }, 'bus message handling failed'));
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
  }

  private count(direction: string, subject: string, outcome: string): void {
    this.metrics?.busMessages.inc({ direction, subject, outcome });
  }

  /** After the server has the resent subscriptions (a flush is a round trip), so no event falls between. */
  private async reconnected(): Promise<void> {
    await this.nc.flush().catch(() => undefined);
    for (const listener of this.reconnectListeners) {
      try {
        listener();
      } catch (err) {
        this.logger?.error({ err }, 'reconnect listener failed');
      }
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        this.logger?.warn({ status: status.type, server: status.data }, 'NATS connection status');
      }
      if (status.type === 'reconnect') await this.reconnected();
    }
  }
}

/** The first pause before asking again when no one answers a subject; it doubles each time. */
const NO_RESPONDERS_PAUSE_MS = 50;
/** How long a subject may go unanswered before the caller is told the peer is unavailable. */
const NO_RESPONDERS_WAIT_MS = 1_000;

function transportFailure(err: unknown): 'no_responders' | 'timeout' | 'unreachable' {
  if (isNoResponders(err)) return 'no_responders';
  if (err instanceof NatsError && err.code === ErrorCode.Timeout) return 'timeout';
  return 'unreachable';
}

function isNoResponders(err: unknown): boolean {
  return err instanceof NatsError && err.code === ErrorCode.NoResponders;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}

async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
