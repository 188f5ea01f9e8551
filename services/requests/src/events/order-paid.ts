import { applyOnce, type ConsumerSpec } from '@meridian/bus';
import { DURABLES, EVENTS, STREAMS, orderPaidSchema, type CloudEvent } from '@meridian/contracts';
import { findBooking, takenBetween } from '../db/repositories/bookings.js';
import type { RequestsDeps } from '../deps.js';
import { SERVICE } from '../deps.js';
import { confirmBooking } from '../flows/book-consultation.js';

/**
 * Billing announces an order paid (from credit, or by a deposit whose memo names it): a booking
 * awaiting payment is confirmed. One paid after its hold ran out is confirmed while its slot is
 * still free; when another booking took the slot meanwhile it stays expired, and an operator
 * settles it (logged with the booking id only). Idempotent (applyOnce) and safe to replay.
 */
export async function applyOrderPaid(deps: RequestsDeps, event: CloudEvent): Promise<void> {
  const parsed = orderPaidSchema.safeParse(event.data);
  if (!parsed.success || !parsed.data.order_id.startsWith('booking-')) return;
  const { order_id, paid_at } = parsed.data;
  await deps.db.transaction().execute((trx) =>
    applyOnce(trx, SERVICE, DURABLES.requestsOrderPaid, event.id, async () => {
      const booking = await findBooking(trx, order_id);
      if (booking?.status !== 'awaiting_payment' && booking?.status !== 'expired') return;
      if (
        booking.status === 'expired' &&
        (await takenBetween(trx, booking.starts_at, booking.ends_at)).length > 0
      ) {
        deps.logger.warn(
          { booking_id: order_id },
          'a booking was paid after its slot went to another; an operator must settle it',
        );
        return;
      }
      await confirmBooking(trx, order_id, booking.status, new Date(paid_at));
    }),
  );
}

export function consumers(deps: RequestsDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.billing.name,
      durable: DURABLES.requestsOrderPaid,
      filterSubject: EVENTS.billingOrderPaid,
      handler: (event: CloudEvent<never>) => applyOrderPaid(deps, event),
    },
  ];
}
