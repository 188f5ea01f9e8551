import { outboxAnnouncer } from '@meridian/bus';
import { EVENTS, bookingConfirmedSchema, requestRecordedSchema } from '@meridian/contracts';
import { SERVICE } from '../deps.js';

/** Writes an event into the outbox of the transaction that makes the change; the payload is checked first. */
export const announce = outboxAnnouncer(SERVICE, {
  [EVENTS.requestsRequestRecorded]: requestRecordedSchema,
  [EVENTS.requestsBookingConfirmed]: bookingConfirmedSchema,
});
