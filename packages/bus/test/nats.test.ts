import { randomUUID } from 'node:crypto';
import { connect as netConnect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deadLetterSubject, type CloudEvent } from '@meridian/contracts';
import { createMetrics } from '@meridian/observability';
import { AckPolicy, connect, nanos, type NatsConnection } from 'nats';
import { createNatsBus, DEAD_LETTER_HEADERS, newEvent, type Bus, type ConsumeContext } from '../src/index.js';
import { TEST_NATS_URL, cuttableLink, deleteNatsNamespace, uniqueName, waitFor } from '../src/testing.js';

// What only the NATS implementation has: names on the server, raw payloads, consumer settings.
const namespace = `t${randomUUID().slice(0, 8)}`;
const metrics = createMetrics('bus-test', { defaultMetrics: false });

describe('NATS bus specifics', () => {
  let bus: Bus;
  let raw: NatsConnection;

  beforeAll(async () => {
    bus = await createNatsBus({ url: TEST_NATS_URL, name: 'bus-nats-test', namespace, metrics });
    raw = await connect({ servers: TEST_NATS_URL, name: 'bus-nats-test-raw' });
  });

  afterAll(async () => {
    await bus?.close();
    await raw?.close();
    await deleteNatsNamespace(TEST_NATS_URL, namespace);
  });

  it('puts streams, subjects and durables in the namespace with the settings asked for', async () => {
    const root = uniqueName('nn');
    const stream = root.toUpperCase();
    await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
    const durable = uniqueName('svc__');
    const spec = { stream, durable, filterSubject: `${root}.a.v1`, maxDeliver: 4, ackWaitMs: 10_000 };
    const consumer = await bus.consume({ ...spec, handler: async () => undefined });
    const jsm = await raw.jetstreamManager();
    const streamInfo = await jsm.streams.info(`${namespace.toUpperCase()}_${stream}`);
    expect(streamInfo.config.subjects).toEqual([`${namespace}.${root}.>`]);
    const info = await jsm.consumers.info(`${namespace.toUpperCase()}_${stream}`, durable);
    expect(info.config).toMatchObject({
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: `${namespace}.${root}.a.v1`,
      // One spare delivery, kept for dead-lettering a message whose consumer died during the last one.
      max_deliver: 5,
      ack_wait: nanos(10_000),
    });
    await consumer.close();
    await expect(jsm.streams.info(`${namespace.toUpperCase()}_DEADLETTER`)).resolves.toBeDefined();
  });

  it('dead-letters a payload that is not a CloudEvent without calling the handler', async () => {
    const root = uniqueName('nn');
    const stream = root.toUpperCase();
    const subject = `${root}.garbage.v1`;
    await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
    const durable = uniqueName('svc__');
    const calls: CloudEvent[] = [];
    const handler = async (event: CloudEvent) => void calls.push(event);
    const consumer = await bus.consume({ stream, durable, filterSubject: subject, handler });
    const dead: ConsumeContext[] = [];
    const dlq = await bus.consume({
      stream: 'DEADLETTER',
      durable: `${durable}_dlq`,
      filterSubject: deadLetterSubject(durable, subject),
      handler: async (_e, ctx) => void dead.push(ctx),
    });
    const js = raw.jetstream();
    await js.publish(
      `${namespace}.${subject}`,
      new TextEncoder().encode(JSON.stringify(newEvent('x', subject, 1))),
    );
    await js.publish(`${namespace}.${subject}`, new TextEncoder().encode('{"not": "an event"}'));
    await waitFor(() => calls.length === 1, { what: 'the valid event' });
    // The dead-letter consumer rejects the garbage in turn (it is not a CloudEvent), so watch the stream.
    const jsm = await raw.jetstreamManager();
    const dlqStream = `${namespace.toUpperCase()}_DEADLETTER`;
    const dlqSubject = `${namespace}.${deadLetterSubject(durable, subject)}`;
    await waitFor(
      async () =>
        (await jsm.streams.info(dlqStream, { subjects_filter: dlqSubject })).state.subjects !== undefined,
    );
    const stored = await jsm.streams.getMessage(dlqStream, { last_by_subj: dlqSubject });
    expect(new TextDecoder().decode(stored.data)).toBe('{"not": "an event"}');
    expect(stored.header.get(DEAD_LETTER_HEADERS.deliveries)).toBe('1');
    expect(stored.header.get(DEAD_LETTER_HEADERS.error)).toContain('not a CloudEvent');
    expect(dead).toEqual([]);
    await Promise.all([consumer.close(), dlq.close()]);
  });

  it('dead-letters a message whose last delivery died with its consumer instead of losing it', async () => {
    const root = uniqueName('nn');
    const stream = root.toUpperCase();
    const subject = `${root}.crash.v1`;
    await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
    const durable = uniqueName('svc__');
    const calls: ConsumeContext[] = [];
    const spec = { stream, durable, filterSubject: subject, maxDeliver: 1, ackWaitMs: 300 };
    const handler = async (_e: CloudEvent, ctx: ConsumeContext) => void calls.push(ctx);
    await (await bus.consume({ ...spec, handler })).close();
    const event = newEvent('x', subject, {});
    await bus.publish(event);
    // A consumer takes the only allowed delivery and dies without settling it.
    const taken = await raw.jetstream().consumers.get(`${namespace.toUpperCase()}_${stream}`, durable);
    expect((await taken.next({ expires: 1000 }))?.info.deliveryCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const dead: CloudEvent[] = [];
    const dlq = await bus.consume({
      stream: 'DEADLETTER',
      durable: `${durable}_dlq`,
      filterSubject: deadLetterSubject(durable, subject),
      handler: async (e) => void dead.push(e),
    });
    const restarted = await bus.consume({ ...spec, handler });
    await waitFor(() => dead.length === 1, { what: 'the dead letter' });
    expect(dead[0]!.id).toBe(event.id);
    expect(calls).toEqual([]);
    await Promise.all([restarted.close(), dlq.close()]);
  });

  it('holds a message while its handler finds the database unreachable, past its deliveries, and applies it once', async () => {
    const root = uniqueName('nn');
    const stream = root.toUpperCase();
    await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
    const durable = uniqueName('svc__');
    // A real refused connection, as a pool gets while its database restarts: four times, then it is back.
    const refused = async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const { port } = closed.address() as AddressInfo;
      await new Promise((r) => closed.close(r));
      await new Promise((_resolve, reject) => netConnect(port, '127.0.0.1').once('error', reject));
    };
    const deliveries: number[] = [];
    let applied = 0;
    const handler = async (_e: CloudEvent, ctx: ConsumeContext) => {
      deliveries.push(ctx.deliveryCount);
      if (deliveries.length <= 4) await refused();
      applied++;
    };
    const consumer = await bus.consume({
      stream,
      durable,
      filterSubject: `${root}.>`,
      maxDeliver: 2,
      backoffMs: [50],
      handler,
    });
    const dead: CloudEvent[] = [];
    const dlq = await bus.consume({
      stream: 'DEADLETTER',
      durable: `${durable}_dlq`,
      filterSubject: deadLetterSubject(durable, `${root}.db.v1`),
      handler: async (e) => void dead.push(e),
    });
    await bus.publish(newEvent('x', `${root}.db.v1`, {}));
    await waitFor(() => applied === 1, { what: 'the event applied' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect({ applied, dead: dead.length, deliveries }).toEqual({
      applied: 1,
      dead: 0,
      deliveries: [1, 1, 1, 1, 1],
    });
    await Promise.all([consumer.close(), dlq.close()]);
  });

  it('does not redeliver the message of a slow handler while it runs', async () => {
    const root = uniqueName('nn');
    const stream = root.toUpperCase();
    await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
    const calls: number[] = [];
    const handler = async (_e: CloudEvent, ctx: ConsumeContext) => {
      calls.push(ctx.deliveryCount);
      await new Promise((resolve) => setTimeout(resolve, 900));
    };
    const spec = {
      stream,
      durable: uniqueName('svc__'),
      filterSubject: `${root}.>`,
      ackWaitMs: 300,
      handler,
    };
    const consumer = await bus.consume(spec);
    await bus.publish(newEvent('x', `${root}.slow.v1`, {}));
    await waitFor(() => calls.length === 1, { what: 'the delivery' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(calls).toEqual([1]);
    await consumer.close();
  });

  it('publishes with the event id as message id', async () => {
    const root = uniqueName('nn');
    await bus.ensureStream({ name: root.toUpperCase(), subjects: [`${root}.>`] });
    const event = newEvent('x', `${root}.a.v1`, {});
    await bus.publish(event);
    const jsm = await raw.jetstreamManager();
    const stored = await jsm.streams.getMessage(`${namespace.toUpperCase()}_${root.toUpperCase()}`, {
      seq: 1,
    });
    expect(stored.header.get('Nats-Msg-Id')).toBe(event.id);
    expect(stored.subject).toBe(`${namespace}.${root}.a.v1`);
  });

  it('asks again for a moment when no one serves a subject, as while a peer restarts', async () => {
    const subject = `rpc.${uniqueName('late')}.answer.v1`;
    let server: { close(): Promise<void> } | undefined;
    const pending = bus.request<{ late: boolean }>(subject, {});
    setTimeout(() => {
      void bus
        .serve(subject, 'late', async () => ({ ok: true, data: { late: true } }))
        .then((s) => {
          server = s;
        });
    }, 200);
    expect(await pending).toEqual({ ok: true, data: { late: true } });
    await server?.close();

    const started = Date.now();
    const unanswered = await bus.request(`rpc.${uniqueName('none')}.answer.v1`, {}, { timeoutMs: 5_000 });
    expect(unanswered.ok).toBe(false);
    // Unavailable after about a second of asking, not after the whole budget.
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('is not ready once closed', async () => {
    const other = await createNatsBus({ url: TEST_NATS_URL, name: 'bus-nats-test-closing', namespace });
    await expect(other.ping()).resolves.toBeUndefined();
    await other.close();
    await expect(other.ping()).rejects.toThrow();
    const reply = await other.request('rpc.any.thing.v1', {});
    expect(reply.ok).toBe(false);
  });

  it('tells its listeners when the connection came back, after events of the gap were lost', async () => {
    const link = await cuttableLink(TEST_NATS_URL);
    const other = await createNatsBus({ url: link.url, name: 'bus-nats-test-reconnect', namespace });
    try {
      const subject = `${uniqueName('rc')}.changed.v1`;
      await bus.ensureStream({ name: subject.split('.')[0]!.toUpperCase(), subjects: [subject] });
      const seen: string[] = [];
      await other.subscribe(subject, (event) => void seen.push(event.id));
      let reconnects = 0;
      const listener = other.onReconnect(() => void reconnects++);
      link.cut();
      const missed = newEvent('x', subject, {});
      await bus.publish(missed);
      link.restore();
      await waitFor(() => reconnects === 1, { timeoutMs: 15_000, what: 'the reconnect' });
      const after = newEvent('x', subject, {});
      await bus.publish(after);
      await waitFor(() => seen.includes(after.id), { what: 'the event published after the reconnect' });
      expect(seen).not.toContain(missed.id);
      await listener.close();
    } finally {
      await other.close();
      await link.close();
    }
  }, 30_000);
});
