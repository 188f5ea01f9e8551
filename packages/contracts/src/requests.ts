import { z } from 'zod';

/**
 * Consulting bookings and service-request events (portal 2.4, 4.6). Times are UTC in ISO 8601;
 * an offset in a request is accepted and converted.
 */

const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** GET /v1/consulting/slots query: a window of at most 31 days. */
export const slotsQuerySchema = z
  .object({
    from: instant.describe('Start of the window, ISO 8601 (default now)').optional(),
    to: instant.describe('End of the window, ISO 8601 (default from + 14 days)').optional(),
  })
  .strict();

export const slotSchema = z.object({
  starts_at: z.string(),
  ends_at: z.string(),
  available: z.boolean().describe('false: booked, or held for a payment'),
});

/** POST /v1/consulting/bookings body. */
export const bookingBodySchema = z
  .object({
    starts_at: instant.describe('The start of a slot from GET /v1/consulting/slots'),
    topic: z.string().trim().max(2000).optional().describe('What the session should cover'),
    payment: z
      .enum(['credit', 'deposit'])
      .default('credit')
      .describe('credit: spend prepaid credit now; deposit: answer a quote to pay on chain'),
  })
  .strict();

export const BOOKING_STATUSES = ['awaiting_payment', 'confirmed', 'expired', 'cancelled'] as const;

export const bookingSchema = z.object({
  id: z.string(),
  starts_at: z.string(),
  ends_at: z.string(),
  status: z.enum(BOOKING_STATUSES),
  topic: z.string().nullable(),
  payment: z.enum(['credit', 'deposit']),
  amount_atomic: z.number().int(),
  created_at: z.string(),
  /** While awaiting payment: when the hold on the slot ends. */
  expires_at: z.string().nullable(),
  /** A direct on-chain payment: where to send what, with which memo. */
  pay: z
    .object({ deposit_address: z.string(), memo: z.string(), asset: z.string(), network: z.string() })
    .nullable(),
});

/** requests.request.recorded.v1 — a service request for an operator to review. */
export const requestRecordedSchema = z.object({
  request_id: z.number().int(),
  account_id: z.string(),
  kind: z.string(),
  domain: z.string().nullable(),
  count: z.number().int(),
  recorded_at: z.string(),
});

/** requests.booking.confirmed.v1 — a paid booking; identity mails the account. */
export const bookingConfirmedSchema = z.object({
  booking_id: z.string(),
  account_id: z.string(),
  starts_at: z.string(),
  ends_at: z.string(),
  topic: z.string().nullable(),
});
