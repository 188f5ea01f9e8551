import type { Kysely } from 'kysely';
import { newEvent, writeOutbox } from '@meridian/bus';
import { EVENTS, paymentSettledSchema, type PaymentSettled } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { SERVICE } from '../deps.js';

/** Writes x402.payment.settled.v1 into the outbox of the transaction that records the settlement. */
export async function announceSettled(trx: Kysely<Database>, data: PaymentSettled): Promise<void> {
  await writeOutbox(
    trx,
    SERVICE,
    newEvent(SERVICE, EVENTS.x402PaymentSettled, paymentSettledSchema.parse(data)),
  );
}
