import { ok, refuse, type PostingReply, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import { insertOperatorAction, settleUnmatchedDeposit } from '../db/repositories/operator-actions.js';
import type { BillingDeps } from '../deps.js';
import { knownAccount } from './known-account.js';
import { operatorActor, operatorLogged, type CheckedOperator } from './operator-by-email.js';
import { inPostingTransaction, postInTransaction, type Posted } from './post.js';
import { refundOrderIn } from './refund-order.js';

type Deps = Pick<BillingDeps, 'db' | 'bus'>;
const REASONS = { grant: 'admin_grant', revoke: 'admin_revoke', topup: 'topup_manual' } as const;

/**
 * An operator's grant, revocation or manual top-up of credit, through the ledger's posting rule
 * (a revocation never takes the balance below zero), to an account billing knows, logged with its
 * reason in the same transaction.
 */
export async function postByOperator(
  deps: Deps,
  operator: CheckedOperator,
  input: {
    kind: keyof typeof REASONS;
    account_id: string;
    amount_atomic: number;
    reason: string;
    key: string;
  },
  at = new Date(),
): Promise<Result<Posted, BillingRefusal>> {
  const known = await knownAccount(deps, input.account_id, at);
  if (!known.ok) return known;
  return inPostingTransaction(deps, async (trx) => {
    const posted = await postInTransaction(
      trx,
      {
        account_id: input.account_id,
        reason: REASONS[input.kind],
        amount_atomic: input.amount_atomic,
        ref: input.reason,
        actor: operatorActor(operator),
        idempotency_key: `operator:${input.key}`,
      },
      at,
    );
    if (posted.ok && !posted.value.replayed)
      await insertOperatorAction(trx, {
        at,
        ...operatorLogged(operator),
        action: `credit.${input.kind}`,
        target: `account:${input.account_id}`,
        reason: `${input.amount_atomic}: ${input.reason}`,
      });
    return posted;
  });
}

/**
 * An operator's refund of an order, through billing's refund rule (never more than was spent less
 * what was refunded), logged in the refund's own transaction: both are written or neither.
 */
export async function refundByOperator(
  deps: Deps,
  operator: CheckedOperator,
  input: { account_id: string; order_id: string; amount_atomic?: number; reason: string; key: string },
  at = new Date(),
): Promise<Result<PostingReply, BillingRefusal>> {
  const known = await knownAccount(deps, input.account_id, at);
  if (!known.ok) return known;
  return inPostingTransaction(deps, async (trx) => {
    const refunded = await refundOrderIn(
      trx,
      {
        account_id: input.account_id,
        order_id: input.order_id,
        actor: operatorActor(operator),
        idempotency_key: `operator:${input.key}`,
        ...(input.amount_atomic ? { amount_atomic: input.amount_atomic } : {}),
      },
      at,
    );
    if (refunded.ok && !refunded.value.replayed)
      await insertOperatorAction(trx, {
        at,
        ...operatorLogged(operator),
        action: 'credit.refund',
        target: `order:${input.order_id}`,
        reason: `${refunded.value.amount_atomic}: ${input.reason}`,
      });
    return refunded;
  });
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
  operator: CheckedOperator,
  input: DepositSettlement,
  at = new Date(),
): Promise<Result<{ tx_signature: string; amount_atomic: number; posted: Posted | null }, BillingRefusal>> {
  if (input.kind === 'assign') {
    const known = await knownAccount(deps, input.account_id, at);
    if (!known.ok) return known;
  }
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
          actor: operatorActor(operator),
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
      ...operatorLogged(operator),
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
