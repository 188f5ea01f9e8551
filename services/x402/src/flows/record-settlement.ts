import type { Kysely } from 'kysely';
import { EVENTS } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { markSettled, type PaymentRow } from '../db/repositories/payments.js';
import { announce } from './events.js';

type Settled = Pick<PaymentRow, 'payment_id' | 'amount_atomic' | 'asset' | 'network' | 'pay_to' | 'resource'>;

/**
 * A payment settled on chain: the row (payer, signature, time) and its event, in one transaction,
 * once: a payment already closed (by another replica's settlement or reconciliation) writes nothing.
 */
export async function recordSettlement(
  db: Kysely<Database>,
  payment: Settled,
  settled: { payer: string; transaction: string; settled_at: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await markSettled(trx, payment.payment_id, settled))) return false;
    await announce(trx, EVENTS.x402PaymentSettled, {
      payment_id: payment.payment_id,
      payer: settled.payer,
      amount_atomic: payment.amount_atomic,
      asset: payment.asset,
      network: payment.network,
      pay_to: payment.pay_to,
      resource: payment.resource,
      transaction: settled.transaction,
      settled_at: settled.settled_at.toISOString(),
    });
    return true;
  });
}
