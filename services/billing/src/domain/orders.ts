import type { LedgerReason } from '@meridian/contracts';

/**
 * The ledger reason of an order by the kind of its price item: an analysis run is the portal's
 * `report`; a consulting booking is a `booking`. Other items are not bought through orders.
 */
export function orderReason(item: string): Extract<LedgerReason, 'report' | 'booking'> | undefined {
  if (item.startsWith('run:')) return 'report';
  if (item.startsWith('booking:')) return 'booking';
  return undefined;
}

/** The history's reason for a direct on-chain payment of an order (portal 2.1). */
export function paymentReason(orderKind: string | null): 'report_payment' | 'booking_payment' {
  return orderKind === 'booking' ? 'booking_payment' : 'report_payment';
}
