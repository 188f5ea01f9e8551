import { expect } from '@jest/globals';
import { z } from 'zod';
import { bookingSchema, serviceRequestAnswerSchema, slotSchema } from '@meridian/contracts';
import { mailTo } from '../accounts.js';
import { DOMAIN, enveloped, problemOf, read, type Journey } from './journey.js';

/** The journey's requests: a service request filed, a consulting slot booked from credit. */

/** Files a service request; the count goes up; one without a domain is refused. */
export async function fileServiceRequest(j: Journey): Promise<void> {
  const first = await j.post('/v1/requests', { kind: 'pentest', domain: DOMAIN, detail: 'after the audit' });
  expect(first.status).toBe(200);
  expect(await read(first, serviceRequestAnswerSchema)).toEqual({ ok: true, count: 1 });
  const again = await j.post('/v1/requests', { kind: 'pentest', domain: DOMAIN.toUpperCase() });
  expect(await read(again, serviceRequestAnswerSchema)).toEqual({ ok: true, count: 2 });
  await problemOf(await j.post('/v1/requests', { kind: 'pentest' }), 400, 'validation_failed');
}

/** Books a consulting slot from credit; identity mails the confirmation. */
export async function bookConsultingSlot(j: Journey): Promise<void> {
  const slots = (await read(await j.get('/v1/consulting/slots'), enveloped(z.array(slotSchema)))).data;
  // A slot past the hour of notice.
  const slot = slots.find((s) => s.available && Date.parse(s.starts_at) > Date.now() + 2 * 3_600_000)!;
  expect(slot).toBeDefined();
  const booked = await j.post('/v1/consulting/bookings', {
    starts_at: slot.starts_at,
    topic: 'the audit findings',
  });
  expect(booked.status).toBe(201);
  const booking = (await read(booked, enveloped(bookingSchema))).data;
  expect(booking).toMatchObject({
    starts_at: slot.starts_at,
    status: 'confirmed',
    payment: 'credit',
    topic: 'the audit findings',
  });
  j.bookingId = booking.id;
  const listed = (await read(await j.get('/v1/consulting/bookings'), enveloped(z.array(bookingSchema)))).data;
  expect(listed.map((b) => b.id)).toEqual([j.bookingId]);
  const after = (await read(await j.get('/v1/consulting/slots'), enveloped(z.array(slotSchema)))).data;
  expect(after.find((s) => s.starts_at === slot.starts_at)).toMatchObject({ available: false });
  // Identity mails the confirmation (the second mail, after the confirmation link).
  const mail = await mailTo(j.smtp, j.email, 2);
  expect(mail.text).toContain(j.bookingId);
  expect(mail.text).toContain('Topic:   the audit findings');
}
