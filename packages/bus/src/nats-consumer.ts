import { deadLetterSubject, isDependencyUnavailable, type CloudEvent } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  NatsError,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from 'nats';
import { backoffFor, decodeEvent, errorMessage, headerSafe, sleep, withIncomingTrace } from './codec.js';
import type { NatsNames } from './nats-names.js';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers.js';
import { consumerSettings, type ConsumerSettings } from './settings.js';
import { DEAD_LETTER_HEADERS, type Closable, type ConsumeContext, type ConsumerSpec } from './types.js';

export interface ConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  ensureDeadLetterStream: () => Promise<void>;
  logger?: Logger | undefined;
  metrics?: Metrics | undefined;
}

type Settings = ConsumerSettings;

const CONSUMER_EXISTS = new Set([10013, 10148]);
const decoder = new TextDecoder();

export async function startNatsConsumer<T>(deps: ConsumerDeps, spec: ConsumerSpec<T>): Promise<Closable> {
  const settings = consumerSettings(spec as ConsumerSpec);
  const stream = deps.names.stream(spec.stream);
  await deps.ensureDeadLetterStream();
  await upsertConsumer(deps.jsm, stream, consumerConfig(settings, deps.names));
  const consumer = await deps.js.consumers.get(stream, spec.durable);
  // Few messages per pull: they are handled one at a time and their ack_wait runs while they wait.
  const messages = await consumer.consume({ max_messages: settings.maxMessages });
  let closing = false;
  const loop = (async () => {
    for await (const msg of messages) await handleMessage(deps, settings, msg, () => closing);
  })().catch((err: unknown) => deps.logger?.error({ err, durable: spec.durable }, 'consumer stopped'));
  return {
    close: async () => {
      closing = true;
      await messages.close();
      await loop;
    },
  };
}

/**
 * Redelivery delays are given by nak(delay) rather than by the consumer's `backoff` list, because the
 * server replaces ack_wait with backoff[0] when a list is set and would redeliver slow handlers while
 * they still run. max_deliver has one spare delivery: a message whose last delivery died with its
 * process comes back once more and is dead-lettered then, instead of being dropped by the server.
 */
function consumerConfig(s: Settings, names: NatsNames): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: s.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: names.subject(s.filterSubject),
    max_deliver: s.maxDeliver + 1,
    ack_wait: nanos(s.ackWaitMs),
  };
}

async function upsertConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  try {
    await jsm.consumers.add(stream, config);
  } catch (err) {
    if (!(err instanceof NatsError) || !CONSUMER_EXISTS.has(err.api_error?.err_code ?? 0)) throw err;
    const { max_deliver, ack_wait } = config;
    await jsm.consumers.update(stream, config.durable_name, { max_deliver, ack_wait });
  }
}

async function handleMessage(
  deps: ConsumerDeps,
  s: Settings,
  msg: JsMsg,
  closing: () => boolean,
): Promise<void> {
  const subject = deps.names.unsubject(msg.subject);
  const decoded = decodeEvent(decoder.decode(msg.data));
  const ctx = { deliveryCount: msg.info.deliveryCount, headers: fromNatsHeaders(msg.headers) };
  if (!decoded.ok) return deadLetter(deps, s, msg, subject, decoded.error);
  if (ctx.deliveryCount > s.maxDeliver) {
    return deadLetter(deps, s, msg, subject, 'the last delivery was never settled');
  }
  const failure = await runHandler(deps, s, decoded.event, ctx, msg, closing);
  if (!failure) return acknowledge(deps, msg, subject);
  deps.logger?.warn(
    { err: failure.error, durable: s.durable, event_id: decoded.event.id, delivery: ctx.deliveryCount },
    'event handler failed',
  );
  if (ctx.deliveryCount >= s.maxDeliver)
    return deadLetter(deps, s, msg, subject, errorMessage(failure.error));
  msg.nak(backoffFor(s.backoffMs, ctx.deliveryCount));
  deps.metrics?.busMessages.inc({ direction: 'consume', subject, outcome: 'retry' });
}

/** Longest wait between two tries of a handler whose database is unavailable (the message held). */
const UNAVAILABLE_RETRY_MAX_MS = 5000;

/**
 * Runs the handler. A failure because a server it depends on is unreachable (its database
 * restarting: isDependencyUnavailable) is no fault of the event: the handler is tried again, the
 * message held (`working`), until it passes, fails otherwise or the consumer closes, so an outage
 * longer than the backoff does not use up the deliveries and dead-letter events that were fine.
 */
async function runHandler(
  deps: ConsumerDeps,
  s: Settings,
  event: CloudEvent,
  ctx: ConsumeContext,
  msg: JsMsg,
  closing: () => boolean,
): Promise<{ error: unknown } | undefined> {
  // Tell the server the message is still being worked on, so a slow handler is not redelivered meanwhile.
  const keepAlive = setInterval(() => msg.working(), Math.max(s.ackWaitMs / 2, 50));
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await withIncomingTrace(ctx.headers, () => s.handler(event, ctx));
        return undefined;
      } catch (error) {
        if (!isDependencyUnavailable(error) || closing()) return { error };
        deps.logger?.warn(
          { err: error, durable: s.durable, event_id: event.id, attempt },
          'event handler: a dependency is unavailable; holding the message',
        );
        await sleep(Math.min(backoffFor(s.backoffMs, attempt) || 1000, UNAVAILABLE_RETRY_MAX_MS));
      }
    }
  } finally {
    clearInterval(keepAlive);
  }
}

async function acknowledge(deps: ConsumerDeps, msg: JsMsg, subject: string): Promise<void> {
  try {
    // Wait for the server's confirmation so a consumer re-created right after does not see it again.
    await msg.ackAck();
    deps.metrics?.busMessages.inc({ direction: 'consume', subject, outcome: 'ok' });
  } catch (err) {
    // The message comes back after ack_wait; consumers are idempotent.
    deps.logger?.warn({ err, subject }, 'ack not confirmed');
  }
}

async function deadLetter(
  deps: ConsumerDeps,
  s: Settings,
  msg: JsMsg,
  subject: string,
  reason: string,
): Promise<void> {
  const seq = msg.info.streamSequence;
  const headers = toNatsHeaders({
    ...withoutNatsHeaders(fromNatsHeaders(msg.headers)),
    [DEAD_LETTER_HEADERS.subject]: subject,
    [DEAD_LETTER_HEADERS.stream]: s.stream,
    [DEAD_LETTER_HEADERS.streamSequence]: String(seq),
    [DEAD_LETTER_HEADERS.deliveries]: String(msg.info.deliveryCount),
    [DEAD_LETTER_HEADERS.durable]: s.durable,
    [DEAD_LETTER_HEADERS.error]: headerSafe(reason),
  });
  try {
    await deps.ensureDeadLetterStream();
    const target = deps.names.subject(deadLetterSubject(s.durable, subject));
    await deps.js.publish(target, msg.data, { msgID: `${s.stream}:${seq}:${s.durable}`, headers });
  } catch (err) {
    deps.logger?.error({ err, durable: s.durable, seq }, 'dead-lettering failed; will retry');
    msg.nak(backoffFor(s.backoffMs, msg.info.deliveryCount));
    return;
  }
  msg.term();
  deps.metrics?.busDeadLetters.inc({ durable: s.durable });
  deps.metrics?.busMessages.inc({ direction: 'consume', subject, outcome: 'dead_letter' });
  deps.logger?.warn({ durable: s.durable, subject, seq, reason }, 'message dead-lettered');
}

function withoutNatsHeaders(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith('nats-')));
}
