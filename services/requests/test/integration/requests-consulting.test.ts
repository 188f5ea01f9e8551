// Consulting bookings: slots, a booking paid from credit or by deposit, once under concurrency and
// under one Idempotency-Key, unpaid holds expiring, and each account seeing its own bookings only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { newEvent } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, bookingSchema, type CloudEvent } from '@meridian/contracts';
import { expireHolds } from '../../src/db/repositories/bookings.js';
import { startRequests, type Requests } from './harness.js';
import { recordEvents, requestCalls } from './support/calls.js';

describe('consulting bookings', () => {
  let h: Requests;
  let events: CloudEvent[];
  let stopConsumer: () => Promise<void>;
  const { slotIn, book } = requestCalls(() => h);

  beforeAll(async () => {
    // Every hour of every day is bookable a day ahead, so the tests do not depend on the weekday.
    h = await startRequests('requests_consulting', {
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
    const recorded = await recordEvents(h);
    events = recorded.events;
    stopConsumer = recorded.close;
  }, 90_000);
  afterAll(async () => {
    await stopConsumer?.();
    await h?.close();
  });

  describe('consulting', () => {
    it('lists slots in a window and books one from credit, once, mailing through the confirmation event', async () => {
      const account = randomUUID();
      await h.grant(account, 200_000_000);
      const starts = slotIn(30);
      const slots = await request(h.app)
        .get(`/v1/consulting/slots?from=${encodeURIComponent(starts)}&to=${encodeURIComponent(slotIn(33))}`)
        .set(await h.as(account));
      expect(slots.status).toBe(200);
      expect(slots.body.data[0]).toEqual({
        starts_at: starts,
        ends_at: new Date(Date.parse(starts) + 3_600_000).toISOString(),
        available: true,
      });
      const res = await book(account, { starts_at: starts, topic: 'Our CSP' });
      expect(res.status).toBe(201);
      expect(bookingSchema.parse(res.body.data)).toMatchObject({
        status: 'confirmed',
        payment: 'credit',
        amount_atomic: 150_000_000,
        pay: null,
        expires_at: null,
      });
      await waitFor(
        () =>
          events.some(
            (e) =>
              e.type === EVENTS.requestsBookingConfirmed &&
              (e.data as { booking_id: string }).booking_id === res.body.data.id,
          ),
        { what: 'confirmation' },
      );
      const again = await book(randomUUID(), { starts_at: starts, payment: 'deposit' });
      expect(again.status).toBe(409);
      const after = await request(h.app)
        .get(`/v1/consulting/slots?from=${encodeURIComponent(starts)}&to=${encodeURIComponent(slotIn(33))}`)
        .set(await h.as(randomUUID()));
      expect(after.body.data[0].available).toBe(false);
      expect(JSON.stringify(after.body)).not.toContain(account);
    });

    it('books a slot once when ten accounts ask at the same moment', async () => {
      const starts = slotIn(40);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => book(randomUUID(), { starts_at: starts, payment: 'deposit' })),
      );
      expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 409)).toHaveLength(9);
    });

    it('books and charges once for a purchase sent twice with one Idempotency-Key, and refuses the key on another body', async () => {
      const account = randomUUID();
      await h.grant(account, 400_000_000);
      const starts = slotIn(70);
      const send = async (body: object, key: string) =>
        request(h.app)
          .post('/v1/consulting/bookings')
          .set(await h.as(account))
          .set('Idempotency-Key', key)
          .send(body);
      const [a, b] = await Promise.all([
        send({ starts_at: starts, topic: 'TLS' }, 'book-1'),
        send({ starts_at: starts, topic: 'TLS' }, 'book-1'),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect(a.body.data.id).toBe(b.body.data.id);
      expect([a.body.data.status, b.body.data.status]).toEqual(['confirmed', 'confirmed']);
      const later = await send({ starts_at: starts, topic: 'TLS' }, 'book-1');
      expect(later.status).toBe(200);
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(later.body.data).toEqual(a.body.data);
      expect((await send({ starts_at: slotIn(71), topic: 'TLS' }, 'book-1')).status).toBe(409);
      expect((await send({ starts_at: starts, topic: 'CSP' }, 'book-1')).status).toBe(409);
      const mine = await request(h.app)
        .get('/v1/consulting/bookings')
        .set(await h.as(account));
      expect(mine.body.data).toHaveLength(1);
      expect(await h.balance(account)).toBe(400_000_000 - 150_000_000);
    });

    it('refuses a booking body with a field it does not name', async () => {
      const res = await book(randomUUID(), { starts_at: slotIn(72), months: 1e20 });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('months');
    });

    it('refuses a booking credit cannot pay and frees its slot', async () => {
      const account = randomUUID();
      const starts = slotIn(45);
      const res = await book(account, { starts_at: starts });
      expect(res.status).toBe(402);
      expect(res.body.error_category).toBe('insufficient_credit');
      // Nothing is left behind: no cancelled booking in the person's list.
      const left = await request(h.app)
        .get('/v1/consulting/bookings')
        .set(await h.as(account));
      expect(left.body.data).toEqual([]);
      expect((await book(randomUUID(), { starts_at: starts, payment: 'deposit' })).status).toBe(201);
      // A refused purchase keeps nothing, its Idempotency-Key included: once credit is there, it books.
      const keyed = async () =>
        request(h.app)
          .post('/v1/consulting/bookings')
          .set(await h.as(account))
          .set('Idempotency-Key', 'short-1')
          .send({ starts_at: slotIn(74) });
      expect((await keyed()).status).toBe(402);
      await h.grant(account, 150_000_000);
      expect((await keyed()).status).toBe(201);
      expect(await h.balance(account)).toBe(0);
    });

    it('quotes a deposit whose memo names the booking, confirms it when billing announces it paid, and expires unpaid holds', async () => {
      const account = randomUUID();
      const res = await book(account, { starts_at: slotIn(50), payment: 'deposit' });
      expect(res.status).toBe(201);
      const booking = bookingSchema.parse(res.body.data);
      expect(booking).toMatchObject({ status: 'awaiting_payment', amount_atomic: 150_000_000 });
      expect(booking.pay).toMatchObject({
        memo: booking.id,
        deposit_address: 'Dep1t5WaLLet1111111111111111111111111111111',
      });
      const paid = newEvent('billing', EVENTS.billingOrderPaid, {
        order_id: booking.id,
        account_id: account,
        amount_atomic: 150_000_000,
        paid_by: 'deposit',
        tx_signature: '5sig',
        paid_at: new Date().toISOString(),
      });
      await h.client.publish(paid);
      await waitFor(
        async () => {
          const mine = await request(h.app)
            .get('/v1/consulting/bookings')
            .set(await h.as(account));
          return mine.body.data[0]?.status === 'confirmed';
        },
        { what: 'the paid booking confirmed' },
      );

      const late = await book(account, { starts_at: slotIn(55), payment: 'deposit' });
      const lapsed = await book(account, { starts_at: slotIn(56), payment: 'deposit' });
      const future = new Date(Date.now() + 2 * 3_600_000);
      expect(await expireHolds(h.deps.db, future)).toEqual(
        expect.arrayContaining([late.body.data.id, lapsed.body.data.id]),
      );
      const taker = await book(randomUUID(), { starts_at: slotIn(56), payment: 'deposit' });
      expect(taker.status).toBe(201);
      for (const id of [late.body.data.id, lapsed.body.data.id])
        await h.client.publish(
          newEvent('billing', EVENTS.billingOrderPaid, {
            order_id: id,
            account_id: account,
            amount_atomic: 150_000_000,
            paid_by: 'deposit',
            tx_signature: `sig-${id}`,
            paid_at: new Date().toISOString(),
          }),
        );
      await waitFor(
        async () => {
          const mine = await request(h.app)
            .get('/v1/consulting/bookings')
            .set(await h.as(account));
          return (
            mine.body.data.find((b: { id: string }) => b.id === late.body.data.id)?.status === 'confirmed'
          );
        },
        { what: 'a late payment of a free slot confirmed' },
      );
      const mine = await request(h.app)
        .get('/v1/consulting/bookings')
        .set(await h.as(account));
      expect(mine.body.data.find((b: { id: string }) => b.id === lapsed.body.data.id).status).toBe('expired');
    });

    it("shows an account its own bookings only, and refuses slots outside the hours' grid or notice", async () => {
      const owner = randomUUID();
      const made = await book(owner, { starts_at: slotIn(60), payment: 'deposit' });
      expect(made.status).toBe(201);
      const other = await request(h.app)
        .get('/v1/consulting/bookings')
        .set(await h.as(randomUUID()));
      expect(other.body.data).toEqual([]);
      const half = new Date(Date.parse(slotIn(61)) + 30 * 60_000).toISOString();
      for (const body of [
        { starts_at: half },
        { starts_at: slotIn(0) },
        { starts_at: 'tomorrow' },
        { starts_at: slotIn(62), payment: 'card' },
      ])
        expect((await book(owner, body)).status).toBe(400);
      for (const q of [
        '?from=nope',
        `?from=${slotIn(10)}&to=${slotIn(5)}`,
        `?from=${slotIn(1)}&to=${slotIn(24 * 40)}`,
      ])
        expect(
          (
            await request(h.app)
              .get(`/v1/consulting/slots${q}`)
              .set(await h.as(owner))
          ).status,
        ).toBe(400);
    });
  });
});
