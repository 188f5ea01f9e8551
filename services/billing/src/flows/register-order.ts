import { ok, refuse, USDC_MINTS, type OrderQuote, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import { ensureOrder } from '../db/repositories/orders.js';
import { priceOf } from '../db/repositories/prices.js';
import { orderReason } from '../domain/orders.js';
import type { BillingDeps } from '../deps.js';
import { depositTarget } from './topup.js';

/**
 * Registers an order that may be paid directly on chain and quotes it: the amount from the price
 * table and the memo that ties a deposit to it (the order id). Registering again answers the same
 * quote, at the price it was first quoted at.
 */
export async function registerOrder(
  deps: BillingDeps,
  order: { account_id: string; order_id: string; item: string; payment: 'credit' | 'deposit' },
  at = new Date(),
): Promise<Result<OrderQuote, BillingRefusal>> {
  const target = depositTarget(deps.config);
  if (!target.ok && order.payment === 'deposit') return target;
  const { payment: _, ...ordered } = order;
  return deps.db.transaction().execute(async (trx) => {
    const price = await priceOf(trx, order.item);
    if (price === undefined) return refuse('not_found', `No price is set for ${order.item}.`);
    const reason = orderReason(order.item);
    if (!reason) return refuse('validation_failed', `${order.item} is not something an order pays for.`);
    const row = await ensureOrder(trx, { ...ordered, kind: reason, amount_atomic: price, created_at: at });
    if (row.account_id !== order.account_id)
      return refuse('conflict', `Order ${order.order_id} is not this account's.`);
    return ok({
      order_id: row.order_id,
      amount_atomic: row.amount_atomic,
      deposit_address: target.ok ? target.value.deposit_address : null,
      memo: row.order_id,
      asset: USDC_MINTS[deps.config.SOLANA_NETWORK]!,
      network: deps.config.SOLANA_NETWORK,
      paid: row.paid_at !== null,
    });
  });
}
