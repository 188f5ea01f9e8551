import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { newEvent, writeOutbox } from '@meridian/bus';
import { EVENTS, bookingConfirmedSchema, requestRecordedSchema } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { SERVICE } from '../deps.js';

const SCHEMAS = {
  [EVENTS.requestsRequestRecorded]: requestRecordedSchema,
  [EVENTS.requestsBookingConfirmed]: bookingConfirmedSchema,
} as const;

type Announced = keyof typeof SCHEMAS;

/** Writes the event into the outbox of the transaction that makes the change; the payload is checked first. */
export async function announce<T extends Announced>(
  trx: Kysely<Database>,
  type: T,
  data: z.infer<(typeof SCHEMAS)[T]>,
): Promise<void> {
  const payload = SCHEMAS[type].parse(data);
  await writeOutbox(trx, SERVICE, newEvent(SERVICE, type, payload));
}
