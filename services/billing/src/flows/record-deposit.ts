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
import { knownAccount } from './known-account.js';
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
  const unknown = await unknownTopupAccount(deps, deposit, at);
  return inPostingTransaction(deps, async (trx) => {
    const kind = unknown ? UNMATCHED : await classify(trx, deposit);
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

/**
 * Whether a top-up memo names an account that does not exist (its deposit is then unmatched,
 * never credited to a phantom). Identity not answering ends the pass: it is read again next time.
 */
async function unknownTopupAccount(deps: BillingDeps, deposit: ObservedDeposit, at: Date): Promise<boolean> {
  const meaning = memoMeaning(deposit.memo);
  if (meaning.kind !== 'topup') return false;
  const known = await knownAccount(deps, meaning.account_id, at);
  if (known.ok) return false;
  if (known.code === 'unknown_account') return true;
  throw new Error(known.detail);
}

const UNMATCHED: Classified = { kind: 'unmatched', account_id: null, order_id: null };

interface Classified {
  kind: DepositKind;
  account_id: string | null;
  order_id: string | null;
  /** The order's price, when the deposit pays one: what it pays over that is the account's credit. */
  price_atomic?: number;
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
      return {
        kind: 'order_payment',
        account_id: order.account_id,
        order_id: order.order_id,
        price_atomic: order.amount_atomic,
      };
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
  if (kind.kind === 'topup') await credit(trx, kind.account_id!, deposit.amount_atomic, deposit, at);
  if (kind.kind === 'order_payment') {
    const price = kind.price_atomic!;
    await markOrderPaid(trx, kind.order_id!, 'deposit', at);
    // An overpayment never vanishes: the excess is the ordering account's credit.
    if (deposit.amount_atomic > price)
      await credit(trx, kind.account_id!, deposit.amount_atomic - price, deposit, at);
    await announce(trx, EVENTS.billingOrderPaid, {
      order_id: kind.order_id!,
      account_id: kind.account_id!,
      amount_atomic: price,
      paid_by: 'deposit',
      tx_signature: deposit.tx_signature,
      paid_at: at.toISOString(),
    });
  }
}

/** A deposit's credit (a top-up, or what it paid over an order's price), keyed by its signature. */
async function credit(
  trx: Transaction<Database>,
  accountId: string,
  amount: number,
  deposit: ObservedDeposit,
  at: Date,
): Promise<void> {
  const posted = await postInTransaction(
    trx,
    {
      account_id: accountId,
      reason: 'topup_usdc',
      amount_atomic: amount,
      ref: deposit.tx_signature,
      actor: 'deposit-watcher',
      idempotency_key: `deposit:${deposit.tx_signature}`,
      tx_signature: deposit.tx_signature,
    },
    at,
  );
  if (!posted.ok) throw new Error(`a deposit could not be credited: ${posted.code}`);
}

/** Moves the cursor past a transaction that is not a deposit (failed, another mint, outgoing). */
export async function advanceCursor(deps: BillingDeps, watched: string, signature: string): Promise<void> {
  await saveCursor(deps.db, watched, signature, new Date());
}

export async function readCursor(deps: BillingDeps, watched: string): Promise<string | null> {
  return cursorOf(deps.db, watched);
}
