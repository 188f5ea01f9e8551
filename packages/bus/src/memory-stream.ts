import { deadLetterSubject, type CloudEvent } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import { backoffFor, decodeEvent, errorMessage, headerSafe, sleep, withIncomingTrace } from './codec.js';
import type { BusJournal, JournalMessage } from './journal.js';
import type { ConsumerSettings } from './settings.js';
import { subjectMatches } from './subjects.js';
import { DEAD_LETTER_HEADERS, DEFAULTS } from './types.js';

export interface StoredMessage {
  seq: number;
  subject: string;
  data: string;
  headers: Record<string, string>;
}

/** What a stream needs from the bus around it: publishing dead letters and reporting. */
export interface StreamHost {
  publishRaw(subject: string, data: string, headers: Record<string, string>, msgId: string): Promise<void>;
  /** Where messages and settlements are kept across restarts; none keeps them in memory only. */
  journal?: BusJournal | undefined;
  logger?: Logger | undefined;
  metrics?: Metrics | undefined;
  redeliveryScale: number;
  deliveryDelayMs: number;
}

/** An in-memory JetStream stream: ordered messages, a duplicate window and durable consumers. */
export class MemoryStream {
  readonly messages: StoredMessage[] = [];
  readonly consumers = new Map<string, DurableConsumer>();
  private readonly seen = new Map<string, number>();
  /** Settlements read from the journal, handed to each durable consumer when it is created. */
  private readonly settledAtStart = new Map<string, Set<number>>();
  /** Appends run one after the other, so that sequence numbers follow the journal's order. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    public subjects: readonly string[],
    private readonly host: StreamHost,
  ) {}

  captures(subject: string): boolean {
    return this.subjects.some((pattern) => subjectMatches(pattern, subject));
  }

  /**
   * What the journal kept from an earlier run, before any consumer attaches. The ids count as seen
   * now: an outbox row published but not marked sent before the stop is published again at start,
   * within the duplicate window, and dropped here.
   */
  restore(messages: JournalMessage[], settled: Array<{ durable: string; seq: number }>): void {
    for (const m of messages) {
      this.messages.push({ seq: m.seq, subject: m.subject, data: m.data, headers: m.headers });
      this.seen.set(m.msgId, Date.now());
    }
    for (const { durable, seq } of settled) {
      const done = this.settledAtStart.get(durable) ?? new Set<number>();
      done.add(seq);
      this.settledAtStart.set(durable, done);
    }
  }

  /**
   * Stores the message unless its id was stored within the duplicate window; resolves to whether it
   * was. With a journal, consumers see the message only once the journal holds it.
   */
  append(msgId: string, subject: string, data: string, headers: Record<string, string>): Promise<boolean> {
    this.forgetOldIds(Date.now());
    if (this.seen.has(msgId)) return Promise.resolve(false);
    this.seen.set(msgId, Date.now());
    const run = this.tail.then(async () => {
      const message = { seq: this.messages.length + 1, subject, data, headers };
      try {
        await this.host.journal?.append({ stream: this.name, msgId, ...message });
      } catch (err) {
        this.seen.delete(msgId);
        throw err;
      }
      this.messages.push(message);
      for (const consumer of this.consumers.values()) consumer.offer(message);
      return true;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private forgetOldIds(now: number): void {
    // Ids are kept in insertion order, so the oldest come first.
    for (const [id, at] of this.seen) {
      if (now - at < DEFAULTS.duplicateWindowMs) return;
      this.seen.delete(id);
    }
  }

  durable(name: string): DurableConsumer {
    let consumer = this.consumers.get(name);
    if (!consumer) {
      consumer = new DurableConsumer(this, this.host, name, this.settledAtStart.get(name));
      this.consumers.set(name, consumer);
    }
    return consumer;
  }
}

/**
 * A durable consumer keeps its position across close and re-create, like a JetStream durable: what was
 * acknowledged is never delivered again, everything else is. Messages are handled one at a time.
 */
export class DurableConsumer {
  private readonly deliveries = new Map<number, number>();
  private readonly done: Set<number>;
  private readonly queue: number[] = [];
  private readonly queued = new Set<number>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly workers: ConsumerSettings[] = [];
  private turn = 0;
  private running: Promise<void> | undefined;

  constructor(
    private readonly stream: MemoryStream,
    private readonly host: StreamHost,
    private readonly name: string,
    settled: Set<number> = new Set(),
  ) {
    this.done = settled;
  }

  /** Starts a worker; replicas of one durable share its messages, as on NATS. */
  attach(settings: ConsumerSettings): () => Promise<void> {
    this.workers.push(settings);
    if (this.workers.length === 1) {
      for (const message of this.stream.messages) this.offer(message);
    }
    return () => this.detach(settings);
  }

  private async detach(settings: ConsumerSettings): Promise<void> {
    const index = this.workers.indexOf(settings);
    if (index >= 0) this.workers.splice(index, 1);
    if (this.workers.length > 0) return;
    // Unsettled messages stay pending and come back when a worker attaches again.
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    await this.running;
  }

  offer(message: StoredMessage): void {
    const filter = this.workers[0]?.filterSubject;
    if (!filter || !subjectMatches(filter, message.subject)) return;
    const seq = message.seq;
    if (this.done.has(seq) || this.timers.has(seq) || this.queued.has(seq)) return;
    this.queue.push(seq);
    this.queued.add(seq);
    this.pump();
  }

  private pump(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0 && this.workers.length > 0) this.pump();
    });
  }

  private async drain(): Promise<void> {
    for (let seq = this.queue.shift(); seq !== undefined; seq = this.queue.shift()) {
      this.queued.delete(seq);
      const worker = this.workers[this.turn++ % this.workers.length];
      const message = this.stream.messages[seq - 1];
      if (worker && message) await this.deliver(worker, message);
    }
  }

  private async deliver(worker: ConsumerSettings, message: StoredMessage): Promise<void> {
    if (this.host.deliveryDelayMs > 0) await sleep(this.host.deliveryDelayMs);
    const deliveryCount = (this.deliveries.get(message.seq) ?? 0) + 1;
    this.deliveries.set(message.seq, deliveryCount);
    const decoded = decodeEvent(message.data);
    if (!decoded.ok) return this.deadLetter(worker, message, deliveryCount, decoded.error);
    const error = await this.run(worker, decoded.event, message, deliveryCount);
    if (!error) return this.settle(message, 'ok');
    this.host.logger?.warn(
      { err: error.cause, durable: worker.durable, event_id: decoded.event.id, delivery: deliveryCount },
      'event handler failed',
    );
    if (deliveryCount >= worker.maxDeliver) {
      return this.deadLetter(worker, message, deliveryCount, errorMessage(error.cause));
    }
    this.retryLater(message, backoffFor(worker.backoffMs, deliveryCount) * this.host.redeliveryScale);
  }

  private async run(
    worker: ConsumerSettings,
    event: CloudEvent,
    message: StoredMessage,
    deliveryCount: number,
  ): Promise<{ cause: unknown } | undefined> {
    const ctx = { deliveryCount, headers: { ...message.headers } };
    try {
      await withIncomingTrace(ctx.headers, () => worker.handler(event, ctx));
      return undefined;
    } catch (cause) {
      return { cause };
    }
  }

  private retryLater(message: StoredMessage, delayMs: number): void {
    this.count(message, 'retry');
    // Detached meanwhile: the message stays pending for the next worker, without a timer.
    if (this.workers.length === 0) return;
    const timer = setTimeout(() => {
      this.timers.delete(message.seq);
      this.offer(message);
    }, delayMs);
    this.timers.set(message.seq, timer);
  }

  private async deadLetter(
    worker: ConsumerSettings,
    message: StoredMessage,
    deliveryCount: number,
    reason: string,
  ): Promise<void> {
    const headers = {
      ...message.headers,
      [DEAD_LETTER_HEADERS.subject]: message.subject,
      [DEAD_LETTER_HEADERS.stream]: this.stream.name,
      [DEAD_LETTER_HEADERS.streamSequence]: String(message.seq),
      [DEAD_LETTER_HEADERS.deliveries]: String(deliveryCount),
      [DEAD_LETTER_HEADERS.durable]: worker.durable,
      [DEAD_LETTER_HEADERS.error]: headerSafe(reason),
    };
    const msgId = `${this.stream.name}:${message.seq}:${worker.durable}`;
    try {
      await this.host.publishRaw(
        deadLetterSubject(worker.durable, message.subject),
        message.data,
        headers,
        msgId,
      );
    } catch (err) {
      this.host.logger?.error(
        { err, durable: worker.durable, seq: message.seq },
        'dead-lettering failed; will retry',
      );
      return this.retryLater(
        message,
        backoffFor(worker.backoffMs, deliveryCount) * this.host.redeliveryScale,
      );
    }
    this.host.metrics?.busDeadLetters.inc({ durable: worker.durable });
    this.host.logger?.warn(
      { durable: worker.durable, subject: message.subject, reason },
      'message dead-lettered',
    );
    await this.settle(message, 'dead_letter');
  }

  /**
   * Settled in the journal before the next message: a stop before that only delivers this message
   * again at the next start, which idempotent consumers absorb, as after a lost ack on NATS.
   */
  private async settle(message: StoredMessage, outcome: string): Promise<void> {
    this.done.add(message.seq);
    this.deliveries.delete(message.seq);
    this.count(message, outcome);
    try {
      await this.host.journal?.settle({ stream: this.stream.name, durable: this.name, seq: message.seq });
    } catch (err) {
      this.host.logger?.warn({ err, durable: this.name, seq: message.seq }, 'settlement not journaled');
    }
  }

  private count(message: StoredMessage, outcome: string): void {
    this.host.metrics?.busMessages.inc({ direction: 'consume', subject: message.subject, outcome });
  }
}
