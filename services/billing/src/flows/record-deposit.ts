import type { Transaction } from 'kysely';
import { EVENTS } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import {
  insertDeposit,
  readCursor as cursorOf,
  saveCursor,
  type DepositKind,
} from '../db/repositories/deposits.js';
import { lockOrder, markOrderPaid } from '../db/repositories/orders.js';
import { memoMeaning, type ObservedDeposit } from '../domain/deposit.js';
import type { BillingDeps } from '../deps.js';
import { announce } from './events.js';
import { inPostingTransaction, postInTransaction } from './post.js';

/**
 * Records one deposit and moves the watcher's cursor past it in the same transaction, so a
 * watcher stopped anywhere resumes without losing or repeating it. The signature is unique in
 * `deposits` and is the idempotency key of the credit, so the same deposit never credits twice.
 */
export async function recordDeposit(
  deps: BillingDeps,
  watched: string,
  deposit: ObservedDeposit,
): Promise<DepositKind> {
  const at = new Date();
  return inPostingTransaction(deps, async (trx) => {
    const kind = await classify(trx, deposit);
    const fresh = await insertDeposit(trx, {
      tx_signature: deposit.tx_signature,
      slot: deposit.slot,
      block_time: deposit.block_time,
      amount_atomic: deposit.amount_atomic,
      memo: deposit.memo,
      kind: kind.kind,
      account_id: kind.account_id,
      order_id: kind.order_id,
      recorded_at: at,
    });
    if (fresh) await apply(trx, kind, deposit, at);
    await saveCursor(trx, watched, deposit.tx_signature, at);
    return kind.kind;
  });
}

interface Classified {
  kind: DepositKind;
  account_id: string | null;
  order_id: string | null;
}

async function classify(trx: Transaction<Database>, deposit: ObservedDeposit): Promise<Classified> {
  const meaning = memoMeaning(deposit.memo);
  switch (meaning.kind) {
    case 'topup':
      return { kind: 'topup', account_id: meaning.account_id, order_id: null };
    case 'retired_rail':
      return { kind: 'retired_rail', account_id: meaning.account_id, order_id: null };
    case 'order': {
      const order = await lockOrder(trx, meaning.order_id);
      // An order pays only when it is open and the deposit covers its price; otherwise an operator looks.
      if (!order || order.paid_at || deposit.amount_atomic < order.amount_atomic)
        return { kind: 'unmatched', account_id: null, order_id: null };
      return { kind: 'order_payment', account_id: order.account_id, order_id: order.order_id };
    }
    case 'unmatched':
      return { kind: 'unmatched', account_id: null, order_id: null };
  }
}

async function apply(
  trx: Transaction<Database>,
  kind: Classified,
  deposit: ObservedDeposit,
  at: Date,
): Promise<void> {
  if (kind.kind === 'topup') {
    const posted = await postInTransaction(
      trx,
      {
        account_id: kind.account_id!,
        reason: 'topup_usdc',
        amount_atomic: deposit.amount_atomic,
        ref: deposit.tx_signature,
        actor: 'deposit-watcher',
        idempotency_key: `deposit:${deposit.tx_signature}`,
        tx_signature: deposit.tx_signature,
      },
      at,
    );
    if (!posted.ok) throw new Error(`a top-up could not be credited: ${posted.code}`);
  }
  if (kind.kind === 'order_payment') {
    await markOrderPaid(trx, kind.order_id!, 'deposit', at);
    await announce(trx, EVENTS.billingOrderPaid, {
      order_id: kind.order_id!,
      account_id: kind.account_id!,
      amount_atomic: deposit.amount_atomic,
      paid_by: 'deposit',
      tx_signature: deposit.tx_signature,
      paid_at: at.toISOString(),
    });
  }
}

/** Moves the cursor past a transaction that is not a deposit (failed, another mint, outgoing). */
export async function advanceCursor(deps: BillingDeps, watched: string, signature: string): Promise<void> {
  await saveCursor(deps.db, watched, signature, new Date());
}

export async function readCursor(deps: BillingDeps, watched: string): Promise<string | null> {
  return cursorOf(deps.db, watched);
}
