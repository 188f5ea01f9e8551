import type { Transaction } from 'kysely';
import { ok, refuse, type Refusal, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { findEntryByKey, insertEntry, moveBalance, readBalance } from '../db/repositories/ledger.js';
import {
  checkAmount,
  samePosting,
  signedDelta,
  usd,
  type PostedEntry,
  type Posting,
} from '../domain/ledger.js';
import { refuseWithAmounts } from '../domain/refusals.js';
import type { BillingDeps } from '../deps.js';

export interface Posted {
  entry: PostedEntry;
  balance_atomic: number;
  /** The key named an entry posted before: this is that entry, nothing new was written. */
  replayed: boolean;
}

export type PostRefusal = Refusal<'insufficient_credit' | 'conflict' | 'validation_failed'>;

/**
 * Posts one entry inside the caller's transaction: the balance row moves first (its lock orders
 * concurrent postings of the account, and its check refuses a balance below zero), then the entry
 * is written. A refusal writes nothing.
 */
export async function postInTransaction(
  trx: Transaction<Database>,
  posting: Posting,
  at: Date,
): Promise<Result<Posted, PostRefusal['code']>> {
  const amount = checkAmount(posting.amount_atomic);
  if (!amount.ok) return amount;
  const existing = await findEntryByKey(trx, posting.account_id, posting.idempotency_key);
  if (existing) return replay(trx, existing, posting);
  const delta = signedDelta(posting);
  const balance = await moveBalance(trx, posting.account_id, delta, at);
  if (balance === undefined) {
    const held = await readBalance(trx, posting.account_id);
    return refuseWithAmounts(
      'insufficient_credit',
      `The credit balance is ${usd(held)}; this needs ${usd(posting.amount_atomic)}.`,
      { balance_atomic: held, needed_atomic: posting.amount_atomic },
    );
  }
  const entry = await insertEntry(trx, {
    account_id: posting.account_id,
    created_at: at,
    delta_atomic: delta,
    reason: posting.reason,
    ref: posting.ref,
    actor: posting.actor,
    idempotency_key: posting.idempotency_key,
    order_id: posting.order_id ?? null,
    tx_signature: posting.tx_signature ?? null,
    corrects_id: posting.corrects_id ?? null,
  });
  return ok({ entry, balance_atomic: balance, replayed: false });
}

async function replay(
  trx: Transaction<Database>,
  existing: PostedEntry,
  posting: Posting,
): Promise<Result<Posted, PostRefusal['code']>> {
  if (!samePosting(existing, posting))
    return refuse(
      'conflict',
      `The idempotency key ${posting.idempotency_key} was already used for a different posting (entry ${existing.id}).`,
    );
  return ok({ entry: existing, balance_atomic: await readBalance(trx, posting.account_id), replayed: true });
}

const isKeyRace = (err: unknown): boolean =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'ledger_entries_idempotency_key';

/**
 * Runs a flow's transaction; when a concurrent retry with the same idempotency key committed
 * first, the unique key refuses this one and the whole transaction runs again, to replay it.
 */
export async function inPostingTransaction<T>(
  deps: Pick<BillingDeps, 'db'>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await deps.db.transaction().execute(work);
  } catch (err) {
    if (!isKeyRace(err)) throw err;
    return deps.db.transaction().execute(work);
  }
}

/** One posting in a transaction of its own. */
export function post(deps: Pick<BillingDeps, 'db'>, posting: Posting, at = new Date()) {
  return inPostingTransaction(deps, (trx) => postInTransaction(trx, posting, at));
}
