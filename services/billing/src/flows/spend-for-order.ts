import { EVENTS, ok, refuse, type PostingReply, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import { ensureOrder, markOrderPaid } from '../db/repositories/orders.js';
import { priceOf } from '../db/repositories/prices.js';
import { orderReason } from '../domain/orders.js';
import type { BillingDeps } from '../deps.js';
import { announce } from './events.js';
import { inPostingTransaction, postInTransaction } from './post.js';

export interface OrderSpend {
  account_id: string;
  order_id: string;
  item: string;
  actor: string;
}

/**
 * Pays an order of analysis or requests from credit at the price the table says now. The order id
 * is the idempotency key: a retry answers the first spend; an order id that belongs to another
 * account, or that was already paid by a deposit, is refused.
 */
export async function spendForOrder(
  deps: BillingDeps,
  spend: OrderSpend,
  at = new Date(),
): Promise<Result<PostingReply, BillingRefusal>> {
  return inPostingTransaction(deps, async (trx) => {
    const price = await priceOf(trx, spend.item);
    if (price === undefined) return refuse('not_found', `No price is set for ${spend.item}.`);
    const reason = orderReason(spend.item);
    if (!reason) return refuse('validation_failed', `${spend.item} is not something an order pays for.`);
    const order = await ensureOrder(trx, {
      order_id: spend.order_id,
      account_id: spend.account_id,
      kind: reason,
      item: spend.item,
      amount_atomic: price,
      created_at: at,
    });
    if (order.account_id !== spend.account_id)
      return refuse('conflict', `Order ${spend.order_id} is not this account's.`);
    if (order.paid_by === 'deposit')
      return refuse('conflict', `Order ${spend.order_id} was paid by an on-chain deposit.`);
    const posted = await postInTransaction(
      trx,
      {
        account_id: spend.account_id,
        reason,
        amount_atomic: order.amount_atomic,
        ref: spend.order_id,
        actor: spend.actor,
        idempotency_key: `order:${spend.order_id}`,
        order_id: spend.order_id,
      },
      at,
    );
    if (!posted.ok) return posted;
    const { entry, balance_atomic, replayed } = posted.value;
    if (!replayed) {
      await markOrderPaid(trx, spend.order_id, 'credit', at);
      await announce(trx, EVENTS.billingOrderPaid, {
        order_id: spend.order_id,
        account_id: spend.account_id,
        amount_atomic: order.amount_atomic,
        paid_by: 'credit',
        tx_signature: null,
        paid_at: at.toISOString(),
      });
    }
    return ok({ entry_id: entry.id, amount_atomic: -entry.delta_atomic, balance_atomic, replayed });
  });
}
