import type { Transaction } from 'kysely';
import { ok, refuse, type PostingReply, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { refuseWithAmounts, type BillingRefusal } from '../domain/refusals.js';
import { entriesOfOrder } from '../db/repositories/ledger.js';
import { lockOrder } from '../db/repositories/orders.js';
import { refundable, usd } from '../domain/ledger.js';
import type { BillingDeps } from '../deps.js';
import { inPostingTransaction, postInTransaction } from './post.js';

export interface OrderRefund {
  account_id: string;
  order_id: string;
  /** Left out: everything still refundable. */
  amount_atomic?: number;
  /** Left out: one full refund per order. */
  idempotency_key?: string;
  actor: string;
}

/**
 * Gives credit back for an order, never more than was spent on it less what was refunded already.
 * The refund entry references the spend it corrects.
 */
export async function refundOrder(
  deps: Pick<BillingDeps, 'db'>,
  refund: OrderRefund,
  at = new Date(),
): Promise<Result<PostingReply, BillingRefusal>> {
  return inPostingTransaction(deps, (trx) => refundOrderIn(trx, refund, at));
}

/** The refund inside the caller's transaction (an operator's, which logs it in the same one). */
export async function refundOrderIn(
  trx: Transaction<Database>,
  refund: OrderRefund,
  at: Date,
): Promise<Result<PostingReply, BillingRefusal>> {
  const key = `refund:${refund.order_id}:${refund.idempotency_key ?? 'full'}`;
  // The order's lock serialises refunds of one order, so two cannot both take what is left.
  const order = await lockOrder(trx, refund.order_id);
  if (order?.account_id !== refund.account_id)
    return refuse('not_found', `Order ${refund.order_id} is not an order of this account.`);
  const entries = await entriesOfOrder(trx, refund.account_id, refund.order_id);
  const spend = entries.find((e) => e.delta_atomic < 0);
  if (!spend) return refuse('not_found', `Order ${refund.order_id} spent no credit of this account.`);
  const earlier = entries.find((e) => e.idempotency_key === key);
  const spent = -entries.filter((e) => e.delta_atomic < 0).reduce((sum, e) => sum + e.delta_atomic, 0);
  const refunded = entries.filter((e) => e.reason === 'refund').reduce((sum, e) => sum + e.delta_atomic, 0);
  // A replay is judged against what was refundable before it, so it answers the same way.
  const left = refundable(spent, refunded - (earlier?.delta_atomic ?? 0));
  const amount = refund.amount_atomic ?? (earlier ? earlier.delta_atomic : left);
  if (amount > left || left === 0)
    return refuseWithAmounts(
      'conflict',
      `Order ${refund.order_id} has ${usd(left)} left to refund; ${usd(amount)} was asked.`,
      { refundable_atomic: left, asked_atomic: amount },
    );
  const posted = await postInTransaction(
    trx,
    {
      account_id: refund.account_id,
      reason: 'refund',
      amount_atomic: amount,
      ref: refund.order_id,
      actor: refund.actor,
      idempotency_key: key,
      order_id: refund.order_id,
      corrects_id: spend.id,
    },
    at,
  );
  if (!posted.ok) return posted;
  const { entry, balance_atomic, replayed } = posted.value;
  return ok({ entry_id: entry.id, amount_atomic: entry.delta_atomic, balance_atomic, replayed });
}
