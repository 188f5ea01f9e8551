import { STREAMS, type CloudEvent, type RpcReply } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import { decodeEvent, lowerKeys, outgoingHeaders, withIncomingTrace } from './codec.js';
import type { BusJournal, JournalMessage, JournalSettlement } from './journal.js';
import { MemoryStream, type StreamHost } from './memory-stream.js';
import { serviceUnavailable } from './problems.js';
import { answerRequest, decodeReply } from './rpc.js';
import { consumerSettings } from './settings.js';
import {
  assertNoticeSubject,
  assertPublishSubject,
  assertRpcSubject,
  patternsOverlap,
  subjectMatches,
} from './subjects.js';
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

export interface MemoryBusOptions extends BusOptions {
  name?: string;
  /** Multiplies every redelivery delay; tests pass a small number to run fast. Default 1. */
  redeliveryScale?: number;
  /**
   * Test seam: each delivery to a durable consumer waits this long first, so that a test can stop
   * the process while an event is published but not yet handled. Default 0.
   */
  deliveryDelayMs?: number;
}

/**
 * The in-process bus of the all-in-one mode; it passes the same contract tests as the NATS one. It
 * keeps its streams in memory: what is not consumed when the process stops is gone (see openMemoryBus).
 */
export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  return new MemoryBus(options);
}

/**
 * The in-process bus keeping its streams and its durable consumers' positions in `journal`: a
 * message is handed to consumers once the journal holds it, and what was not settled when the
 * process stopped (SIGKILL included) is delivered at the next start.
 */
export async function openMemoryBus(options: MemoryBusOptions & { journal: BusJournal }): Promise<Bus> {
  const bus = new MemoryBus(options);
  const { messages, settled } = await options.journal.load();
  bus.restore(messages, settled);
  return bus;
}

interface QueueGroup {
  pattern: string;
  queue: string;
  handlers: RpcHandler[];
  next: number;
}

interface Subscriber {
  pattern: string;
  handler: EventHandler<unknown>;
}

class MemoryBus implements Bus, StreamHost {
  readonly kind = 'memory' as const;
  readonly logger: Logger | undefined;
  readonly metrics: Metrics | undefined;
  readonly redeliveryScale: number;
  readonly deliveryDelayMs: number;
  readonly journal: BusJournal | undefined;
  private readonly groups = new Map<string, QueueGroup>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly streams = new Map<string, MemoryStream>();
  private readonly open = new Set<Closable>();
  private readonly inflight = new Set<Promise<unknown>>();
  private closed = false;
  /** Journaled messages and settlements of streams not ensured yet in this run. */
  private readonly kept = new Map<string, { messages: JournalMessage[]; settled: JournalSettlement[] }>();

  constructor(options: MemoryBusOptions & { journal?: BusJournal }) {
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.redeliveryScale = options.redeliveryScale ?? 1;
    this.deliveryDelayMs = options.deliveryDelayMs ?? 0;
    this.journal = options.journal;
    this.streams.set(
      STREAMS.deadLetter.name,
      new MemoryStream(STREAMS.deadLetter.name, STREAMS.deadLetter.subjects, this),
    );
  }

  /** Takes what the journal kept; each stream gets its part when it is ensured (at once for DEADLETTER). */
  restore(messages: JournalMessage[], settled: JournalSettlement[]): void {
    const part = (stream: string) => {
      const kept = this.kept.get(stream) ?? { messages: [], settled: [] };
      this.kept.set(stream, kept);
      return kept;
    };
    for (const m of messages) part(m.stream).messages.push(m);
    for (const s of settled) part(s.stream).settled.push(s);
    for (const stream of this.streams.values()) this.restoreInto(stream);
  }

  private restoreInto(stream: MemoryStream): void {
    const kept = this.kept.get(stream.name);
    if (!kept) return;
    this.kept.delete(stream.name);
    stream.restore(kept.messages, kept.settled);
  }

  async serve<Req, Res>(subject: string, queue: string, handler: RpcHandler<Req, Res>): Promise<Closable> {
    assertRpcSubject(subject);
    this.assertOpen();
    const key = `${subject} ${queue}`;
    const group = this.groups.get(key) ?? { pattern: subject, queue, handlers: [], next: 0 };
    this.groups.set(key, group);
    const own = handler as RpcHandler;
    group.handlers.push(own);
    return this.register(async () => {
      group.handlers.splice(group.handlers.indexOf(own), 1);
      if (group.handlers.length === 0) this.groups.delete(key);
    });
  }

  async request<Res>(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<RpcReply<Res>> {
    assertRpcSubject(subject);
    const chosen = this.closed ? [] : this.pickServers(subject);
    if (chosen.length === 0) return this.unavailable(subject, 'no_responders');
    const body = JSON.stringify(payload ?? null);
    const headers = outgoingHeaders(opts.headers);
    const answers = chosen.map((handler) =>
      this.track(answerRequest(handler, body, headers, { logger: this.logger, subject })),
    );
    const timeoutMs = opts.timeoutMs ?? DEFAULTS.requestTimeoutMs;
    const reply = await firstOrTimeout(answers, timeoutMs);
    if (!reply) return this.unavailable(subject, 'timeout');
    this.count('serve', subject, reply.ok ? 'ok' : 'problem');
    this.count('request', subject, 'ok');
    // Through JSON and back, so the caller never shares objects with the server, as over the wire.
    return decodeReply<Res>(JSON.stringify(reply), this.logger, subject);
  }

  /** One server of every queue group listening on the subject, taken in turn within a group. */
  private pickServers(subject: string): RpcHandler[] {
    const chosen: RpcHandler[] = [];
    for (const group of this.groups.values()) {
      if (!subjectMatches(group.pattern, subject) || group.handlers.length === 0) continue;
      chosen.push(group.handlers[group.next++ % group.handlers.length]!);
    }
    return chosen;
  }

  private unavailable<Res>(subject: string, reason: string): RpcReply<Res> {
    this.count('request', subject, reason);
    return { ok: false, problem: serviceUnavailable(subject, reason.replace('_', ' ')) };
  }

  async ensureStream(spec: StreamSpec): Promise<void> {
    this.assertOpen();
    for (const other of this.streams.values()) {
      if (other.name === spec.name) continue;
      const clash = spec.subjects.find((s) => other.subjects.some((o) => patternsOverlap(s, o)));
      if (clash)
        throw new Error(`Subjects of stream ${spec.name} overlap with stream ${other.name} (${clash})`);
    }
    const existing = this.streams.get(spec.name);
    if (existing) existing.subjects = [...spec.subjects];
    else {
      const stream = new MemoryStream(spec.name, [...spec.subjects], this);
      this.restoreInto(stream);
      this.streams.set(spec.name, stream);
    }
  }

  async publish(event: CloudEvent, opts: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    const subject = opts.subject ?? event.type;
    assertPublishSubject(subject);
    const headers = outgoingHeaders(opts.headers, event.traceparent);
    try {
      await this.publishRaw(subject, JSON.stringify(event), headers, event.id);
      this.count('publish', subject, 'ok');
    } catch (err) {
      this.count('publish', subject, 'error');
      throw err;
    }
  }

  async notify(event: CloudEvent, opts: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    const subject = opts.subject ?? event.type;
    assertNoticeSubject(subject);
    this.fanOut(subject, JSON.stringify(event), outgoingHeaders(opts.headers, event.traceparent));
    this.count('notify', subject, 'ok');
  }

  /** Store in the stream that captures the subject, then fan out to core subscribers, as NATS does. */
  async publishRaw(
    subject: string,
    data: string,
    headers: Record<string, string>,
    msgId: string,
  ): Promise<void> {
    const stream = [...this.streams.values()].find((s) => s.captures(subject));
    if (!stream) throw new Error(`Publishing to ${subject} failed: no stream captures it`);
    await stream.append(msgId, subject, data, lowerKeys(headers));
    this.fanOut(subject, data, headers);
  }

  private fanOut(subject: string, data: string, headers: Record<string, string>): void {
    for (const sub of this.subscribers) {
      // Fanned out without waiting, as NATS does: deliver counts and logs a subscriber's failure.
      if (subjectMatches(sub.pattern, subject)) void this.track(this.deliver(sub, subject, data, headers));
    }
  }

  private async deliver(sub: Subscriber, subject: string, data: string, headers: Record<string, string>) {
    // Let the publisher go on first, as it would over the network.
    await new Promise((resolve) => setImmediate(resolve));
    const decoded = decodeEvent(data);
    if (!decoded.ok) return this.count('subscribe', subject, 'invalid');
    try {
      await withIncomingTrace(lowerKeys(headers), () => sub.handler(decoded.event));
      this.count('subscribe', subject, 'ok');
    } catch (err) {
      this.count('subscribe', subject, 'error');
      this.logger?.error({ err, subject, event_id: decoded.event.id }, 'subscriber failed');
    }
  }

  async consume<T>(spec: ConsumerSpec<T>): Promise<Closable> {
    this.assertOpen();
    const settings = consumerSettings(spec as ConsumerSpec);
    const stream = this.streams.get(spec.stream);
    if (!stream) throw new Error(`Stream ${spec.stream} not found`);
    const detach = stream.durable(spec.durable).attach(settings);
    return this.register(detach);
  }

  async subscribe<T>(subject: string, handler: EventHandler<T>): Promise<Closable> {
    this.assertOpen();
    const sub: Subscriber = { pattern: subject, handler: handler as EventHandler<unknown> };
    this.subscribers.add(sub);
    return this.register(async () => {
      this.subscribers.delete(sub);
    });
  }

  /** In process there is no connection to lose. */
  onReconnect(): Closable {
    return { close: async () => {} };
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.open].map((c) => c.close()));
    await Promise.allSettled([...this.inflight]);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The bus is closed');
  }

  private register(close: () => Promise<void>): Closable {
    const closable: Closable = {
      close: async () => {
        if (this.open.delete(closable)) await close();
      },
    };
    this.open.add(closable);
    return closable;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work)).catch(() => undefined);
    return work;
  }

  private count(direction: string, subject: string, outcome: string): void {
    this.metrics?.busMessages.inc({ direction, subject, outcome });
  }
}

/** The first answer, or undefined when none came in time. */
async function firstOrTimeout<T>(answers: Promise<T>[], ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([...answers, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
