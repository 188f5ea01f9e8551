import { ok, refuse, type PostingReply, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import { insertOperatorAction, settleUnmatchedDeposit } from '../db/repositories/operator-actions.js';
import type { BillingDeps } from '../deps.js';
import { inPostingTransaction, postInTransaction, type Posted } from './post.js';
import { refundOrder } from './refund-order.js';

type Deps = Pick<BillingDeps, 'db'>;
const actorOf = (operatorId: string) => `operator:${operatorId}`;

/**
 * An operator's grant or revocation of credit, through the ledger's posting rule (a revocation
 * never takes the balance below zero), logged with its reason in the same transaction.
 */
export async function postByOperator(
  deps: Deps,
  operatorId: string,
  input: { kind: 'grant' | 'revoke'; account_id: string; amount_atomic: number; reason: string; key: string },
  at = new Date(),
) {
  return inPostingTransaction(deps, async (trx) => {
    const posted = await postInTransaction(
      trx,
      {
        account_id: input.account_id,
        reason: input.kind === 'grant' ? 'admin_grant' : 'admin_revoke',
        amount_atomic: input.amount_atomic,
        ref: input.reason,
        actor: actorOf(operatorId),
        idempotency_key: `operator:${input.key}`,
      },
      at,
    );
    if (posted.ok && !posted.value.replayed)
      await insertOperatorAction(trx, {
        at,
        actor: actorOf(operatorId),
        action: `credit.${input.kind}`,
        target: `account:${input.account_id}`,
        reason: `${input.amount_atomic}: ${input.reason}`,
      });
    return posted;
  });
}

/**
 * An operator's refund of an order, through billing's refund rule (never more than was spent less
 * what was refunded). The refund is its own transaction; the log line follows it.
 */
export async function refundByOperator(
  deps: Deps,
  operatorId: string,
  input: { account_id: string; order_id: string; amount_atomic?: number; reason: string; key: string },
  at = new Date(),
): Promise<Result<PostingReply, BillingRefusal>> {
  const refunded = await refundOrder(
    deps,
    {
      account_id: input.account_id,
      order_id: input.order_id,
      actor: actorOf(operatorId),
      idempotency_key: `operator:${input.key}`,
      ...(input.amount_atomic ? { amount_atomic: input.amount_atomic } : {}),
    },
    at,
  );
  if (refunded.ok && !refunded.value.replayed)
    await insertOperatorAction(deps.db, {
      at,
      actor: actorOf(operatorId),
      action: 'credit.refund',
      target: `order:${input.order_id}`,
      reason: `${refunded.value.amount_atomic}: ${input.reason}`,
    });
  return refunded;
}

export type DepositSettlement =
  | { kind: 'assign'; tx_signature: string; account_id: string; reason: string }
  | { kind: 'return'; tx_signature: string; reason: string };

/**
 * Settles an unmatched deposit once: assigned, it tops the account up as the deposit watcher
 * would have (a `topup_usdc` entry keyed by the signature); returned, it is only marked so (the
 * operator sent it back on chain; the reason says how). Logged in the same transaction.
 */
export async function settleDeposit(
  deps: Deps,
  operatorId: string,
  input: DepositSettlement,
  at = new Date(),
): Promise<Result<{ tx_signature: string; amount_atomic: number; posted: Posted | null }, 'not_found'>> {
  return inPostingTransaction(deps, async (trx) => {
    const to =
      input.kind === 'assign'
        ? { kind: 'topup' as const, account_id: input.account_id }
        : { kind: 'returned' as const };
    const amount = await settleUnmatchedDeposit(trx, input.tx_signature, to);
    if (amount === undefined)
      return refuse('not_found', 'No unmatched deposit has this transaction signature.');
    let posted: Posted | null = null;
    if (input.kind === 'assign') {
      const result = await postInTransaction(
        trx,
        {
          account_id: input.account_id,
          reason: 'topup_usdc',
          amount_atomic: amount,
          ref: input.tx_signature,
          actor: actorOf(operatorId),
          idempotency_key: `deposit:${input.tx_signature}`,
          tx_signature: input.tx_signature,
        },
        at,
      );
      if (!result.ok) throw new Error(`an assigned deposit could not be credited: ${result.code}`);
      posted = result.value;
    }
    await insertOperatorAction(trx, {
      at,
      actor: actorOf(operatorId),
      action: `deposit.${input.kind}`,
      target:
        input.kind === 'assign'
          ? `deposit:${input.tx_signature} -> account:${input.account_id}`
          : `deposit:${input.tx_signature}`,
      reason: input.reason,
    });
    return ok({ tx_signature: input.tx_signature, amount_atomic: amount, posted });
  });
}
