import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { deadLetterSubject, STREAMS, type CloudEvent, type RpcReply } from '@meridian/contracts';
import { currentTrace, runWithTrace, traceFromHeaders } from '@meridian/observability';
import { sleep } from './codec.js';
import { newEvent } from './event.js';
import { uniqueName, waitFor, type BusUnderTest } from './testing.js';
import { DEAD_LETTER_HEADERS, type Bus, type Closable, type ConsumeContext } from './types.js';

interface Received<T> {
  event: CloudEvent<T>;
  ctx: ConsumeContext;
}

/**
 * The behaviour every Bus implementation must show, run against each of them; a service that passes
 * its tests on one passes them on the other.
 */
export function busContractSuite(name: string, makeBus: () => Promise<BusUnderTest>): void {
  describe(`Bus contract: ${name}`, () => {
    let setup: BusUnderTest;
    let bus: Bus;
    let peer: Bus;
    const opened: Closable[] = [];
    const keep = (c: Closable) => opened.push(c);

    beforeAll(async () => {
      setup = await makeBus();
      bus = setup.bus;
      peer = setup.peer ? await setup.peer() : bus;
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((c) => c.close()));
    });
    afterAll(async () => {
      if (peer && peer !== bus) await peer.close();
      await setup?.cleanup();
    });

    /** A stream of its own for one test, and the event subject it captures. */
    async function freshStream() {
      const root = uniqueName('ct');
      const stream = root.toUpperCase();
      await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
      return { stream, subject: `${root}.thing.happened.v1`, root };
    }

    function collect<T>(into: Received<T>[], fail?: (ctx: ConsumeContext) => boolean) {
      return async (event: CloudEvent<T>, ctx: ConsumeContext) => {
        into.push({ event, ctx });
        if (fail?.(ctx)) throw new Error(`handler refused delivery ${ctx.deliveryCount}`);
      };
    }

    describe('request/reply', () => {
      it('answers a request with the reply of the server', async () => {
        const subject = `rpc.${uniqueName()}.double.v1`;
        keep(
          await bus.serve<{ n: number }, { doubled: number }>(subject, 'svc', async (req) => ({
            ok: true,
            data: { doubled: req.n * 2 },
          })),
        );
        await expect(bus.request(subject, { n: 21 })).resolves.toEqual({ ok: true, data: { doubled: 42 } });
      });

      it('spreads requests over the servers of a queue group and answers each once per group', async () => {
        const subject = `rpc.${uniqueName()}.count.v1`;
        const calls = { a: 0, b: 0, other: 0 };
        const server = (key: keyof typeof calls) => async () => {
          calls[key]++;
          return { ok: true as const, data: key };
        };
        keep(await bus.serve(subject, 'svc', server('a')));
        keep(await peer.serve(subject, 'svc', server('b')));
        keep(await bus.serve(subject, 'other-svc', server('other')));
        for (let i = 0; i < 20; i++) expect((await bus.request(subject, { i })).ok).toBe(true);
        await waitFor(() => calls.other === 20, { what: 'the other queue group' });
        await sleep(100);
        expect(calls.a + calls.b).toBe(20);
        expect(calls.a).toBeGreaterThan(0);
        expect(calls.b).toBeGreaterThan(0);
        expect(calls.other).toBe(20);
      });

      it('answers 503 service_unavailable, retryable, when no server listens', async () => {
        const reply = await bus.request(`rpc.${uniqueName()}.nobody.v1`, {}, { timeoutMs: 1000 });
        expect(reply).toEqual({
          ok: false,
          problem: expect.objectContaining({
            type: 'https://meridian.example/errors/service_unavailable',
            status: 503,
            error_category: 'service_unavailable',
            retryable: true,
            retry_after: 1,
          }),
        });
      });

      it('answers 503 when the server does not answer in time', async () => {
        const subject = `rpc.${uniqueName()}.slow.v1`;
        keep(
          await bus.serve(subject, 'svc', async () => {
            await sleep(400);
            return { ok: true, data: 'late' };
          }),
        );
        const reply = await bus.request(subject, {}, { timeoutMs: 100 });
        expect(reply.ok).toBe(false);
        if (!reply.ok) expect(reply.problem).toMatchObject({ status: 503, retryable: true });
      });

      it('answers 500 internal without the message of a handler that throws', async () => {
        const subject = `rpc.${uniqueName()}.broken.v1`;
        keep(
          await bus.serve(subject, 'svc', async () => {
            throw new Error('secret-detail-4711 at db.query');
          }),
        );
        const reply: RpcReply<unknown> = await bus.request(subject, {});
        expect(reply).toEqual({
          ok: false,
          problem: expect.objectContaining({ status: 500, error_category: 'internal', retryable: false }),
        });
        expect(JSON.stringify(reply)).not.toContain('secret-detail-4711');
      });
      it('refuses request/reply subjects outside rpc., where a stream could capture them', async () => {
        const subject = `${uniqueName('notrpc')}.thing.v1`;
        await expect(bus.serve(subject, 'svc', async () => ({ ok: true, data: null }))).rejects.toThrow(
          'rpc.',
        );
        await expect(bus.request(subject, {})).rejects.toThrow('rpc.');
      });
    });

    describe('streams and durable consumers', () => {
      it('delivers events published before and after the consumer started', async () => {
        const { stream, subject } = await freshStream();
        const before = newEvent('test', subject, { n: 1 });
        await bus.publish(before);
        const got: Received<{ n: number }>[] = [];
        keep(
          await bus.consume({
            stream,
            durable: uniqueName('c_'),
            filterSubject: subject,
            handler: collect(got),
          }),
        );
        const after = newEvent('test', subject, { n: 2 });
        await bus.publish(after);
        await waitFor(() => got.length === 2, { what: 'two events' });
        expect(got.map((r) => r.event)).toEqual([before, after]);
        expect(got.map((r) => r.ctx.deliveryCount)).toEqual([1, 1]);
      });

      it('refuses to publish to a subject no stream captures', async () => {
        await expect(bus.publish(newEvent('test', `${uniqueName('nostream')}.a.b.v1`, {}))).rejects.toThrow();
      });

      it('creates streams idempotently and updates their subjects', async () => {
        const { stream, root } = await freshStream();
        await bus.ensureStream({ name: stream, subjects: [`${root}.>`] });
        const extra = uniqueName('extra');
        await bus.ensureStream({ name: stream, subjects: [`${root}.>`, `${extra}.>`] });
        await expect(bus.publish(newEvent('test', `${extra}.thing.v1`, {}))).resolves.toBeUndefined();
      });

      it('delivers an event published twice with the same id once', async () => {
        const { stream, subject } = await freshStream();
        const got: Received<unknown>[] = [];
        keep(
          await bus.consume({
            stream,
            durable: uniqueName('c_'),
            filterSubject: subject,
            handler: collect(got),
          }),
        );
        const event = newEvent('test', subject, { once: true });
        await bus.publish(event);
        await bus.publish(event);
        const sentinel = newEvent('test', subject, { sentinel: true });
        await bus.publish(sentinel);
        await waitFor(() => got.some((r) => r.event.id === sentinel.id), { what: 'the sentinel' });
        expect(got.map((r) => r.event.id)).toEqual([event.id, sentinel.id]);
      });

      it('redelivers after a failure and succeeds on the third delivery', async () => {
        const { stream, subject } = await freshStream();
        const got: Received<unknown>[] = [];
        const handler = collect(got, (ctx) => ctx.deliveryCount < 3);
        const spec = { stream, durable: uniqueName('c_'), filterSubject: subject, handler };
        keep(await bus.consume({ ...spec, maxDeliver: 5, backoffMs: [50, 100] }));
        await bus.publish(newEvent('test', subject, { flaky: true }));
        await waitFor(() => got.length === 3, { what: 'three deliveries' });
        await sleep(300);
        expect(got.map((r) => r.ctx.deliveryCount)).toEqual([1, 2, 3]);
      });

      it('dead-letters a message after maxDeliver failed deliveries and counts it', async () => {
        const { stream, subject } = await freshStream();
        const durable = uniqueName('c_');
        const attempts: Received<unknown>[] = [];
        const failing = async (event: CloudEvent, ctx: ConsumeContext) => {
          attempts.push({ event, ctx });
          throw new Error('always broken');
        };
        keep(
          await bus.consume({
            stream,
            durable,
            filterSubject: subject,
            handler: failing,
            maxDeliver: 3,
            backoffMs: [50, 100],
          }),
        );
        const dead: Received<unknown>[] = [];
        const dlq = deadLetterSubject(durable, subject);
        keep(
          await bus.consume({
            stream: STREAMS.deadLetter.name,
            durable: `${durable}_dlq`,
            filterSubject: dlq,
            handler: collect(dead),
          }),
        );
        const event = newEvent('test', subject, { doomed: true });
        await bus.publish(event);
        await waitFor(() => dead.length === 1, { what: 'the dead letter' });
        await sleep(300);
        expect(attempts.map((r) => r.ctx.deliveryCount)).toEqual([1, 2, 3]);
        expect(dead[0]!.event).toEqual(event);
        expect(dead[0]!.ctx.headers).toMatchObject({
          [DEAD_LETTER_HEADERS.subject]: subject,
          [DEAD_LETTER_HEADERS.deliveries]: '3',
          [DEAD_LETTER_HEADERS.durable]: durable,
          [DEAD_LETTER_HEADERS.error]: 'always broken',
        });
        expect(Number(dead[0]!.ctx.headers[DEAD_LETTER_HEADERS.streamSequence])).toBeGreaterThan(0);
        if (setup.metrics) {
          const counted = (await setup.metrics.busDeadLetters.get()).values.find(
            (v) => v.labels.durable === durable,
          );
          expect(counted?.value).toBe(1);
        }
      });

      it('resumes a durable consumer after its last acknowledged message', async () => {
        const { stream, subject } = await freshStream();
        const durable = uniqueName('c_');
        const got: Received<unknown>[] = [];
        const first = newEvent('test', subject, { n: 1 });
        await bus.publish(first);
        const consumer = await bus.consume({
          stream,
          durable,
          filterSubject: subject,
          handler: collect(got),
        });
        await waitFor(() => got.length === 1, { what: 'the first event' });
        await consumer.close();
        const second = newEvent('test', subject, { n: 2 });
        await bus.publish(second);
        keep(await bus.consume({ stream, durable, filterSubject: subject, handler: collect(got) }));
        await waitFor(() => got.length === 2, { what: 'the second event' });
        await sleep(300);
        expect(got.map((r) => r.event.id)).toEqual([first.id, second.id]);
      });
    });

    describe('fan-out subscriptions', () => {
      it('delivers a published event to every subscriber of every replica', async () => {
        const { subject } = await freshStream();
        const seen: string[] = [];
        keep(await bus.subscribe(subject, (e) => void seen.push(`bus:${e.id}`)));
        keep(await peer.subscribe(subject, async (e) => void seen.push(`peer:${e.id}`)));
        const event = newEvent('test', subject, { invalidate: 'key' });
        await bus.publish(event);
        await waitFor(() => seen.length === 2, { what: 'both subscribers' });
        expect(seen.sort()).toEqual([`bus:${event.id}`, `peer:${event.id}`]);
      });

      it('fans a notice out to every replica at once, with no stream to store it', async () => {
        const subject = `notice.${uniqueName()}.changed.v1`;
        const seen: string[] = [];
        keep(await bus.subscribe(subject, (e) => void seen.push(`bus:${e.id}`)));
        keep(await peer.subscribe(subject, async (e) => void seen.push(`peer:${e.id}`)));
        const notice = newEvent('test', subject, { kinds: ['candles'] });
        await bus.notify(notice);
        await waitFor(() => seen.length === 2, { what: 'both replicas' });
        expect(seen.sort()).toEqual([`bus:${notice.id}`, `peer:${notice.id}`]);
        // A notice is not an event: outside notice. it is refused, and publish never takes notice.
        await expect(bus.notify(newEvent('test', `${uniqueName()}.changed.v1`, {}))).rejects.toThrow(
          /notice\./,
        );
        await expect(bus.publish(newEvent('test', subject, {}))).rejects.toThrow();
      });
    });

    describe('trace propagation', () => {
      it('carries the request id and trace id through request/reply', async () => {
        const subject = `rpc.${uniqueName()}.trace.v1`;
        let seen: { header?: string; requestId?: string; traceId?: string } = {};
        keep(
          await bus.serve(subject, 'svc', async (_req, ctx) => {
            seen = { header: ctx.headers['x-request-id'], ...currentTrace() };
            return { ok: true, data: null };
          }),
        );
        const trace = traceFromHeaders({ requestId: 'req-rpc-1' });
        await runWithTrace(trace, () => bus.request(subject, {}));
        expect(seen).toMatchObject({ header: 'req-rpc-1', requestId: 'req-rpc-1', traceId: trace.traceId });
      });

      it('carries the request id and trace id through publish and consume', async () => {
        const { stream, subject } = await freshStream();
        const seen: { header?: string; requestId?: string; traceId?: string }[] = [];
        const handler = async (_e: CloudEvent, ctx: ConsumeContext) => {
          seen.push({ header: ctx.headers['x-request-id'], ...currentTrace() });
        };
        keep(await bus.consume({ stream, durable: uniqueName('c_'), filterSubject: subject, handler }));
        const trace = traceFromHeaders({ requestId: 'req-pub-1' });
        await runWithTrace(trace, () => bus.publish(newEvent('test', subject, {})));
        await waitFor(() => seen.length === 1, { what: 'the traced event' });
        expect(seen[0]).toMatchObject({
          header: 'req-pub-1',
          requestId: 'req-pub-1',
          traceId: trace.traceId,
        });
      });
    });

    it('answers ping while open', async () => {
      await expect(bus.ping()).resolves.toBeUndefined();
    });
  });
}
