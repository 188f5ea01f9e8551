import { outboxAnnouncer } from '@meridian/bus';
import { EVENTS, paymentSettledSchema } from '@meridian/contracts';
import { SERVICE } from '../deps.js';

/** Writes x402.payment.settled.v1 into the outbox of the transaction that records the settlement. */
export const announce = outboxAnnouncer(SERVICE, { [EVENTS.x402PaymentSettled]: paymentSettledSchema });
