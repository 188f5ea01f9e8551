import { ok, refuse, type LedgerReason, type Result } from '@meridian/contracts';

/** Reasons that take money out of the balance; the others put it in. */
const DEBIT_REASONS: ReadonlySet<LedgerReason> = new Set([
  'report',
  'admin_revoke',
  'subscription',
  'data_plan',
  'booking',
]);

export const isDebitReason = (reason: LedgerReason): boolean => DEBIT_REASONS.has(reason);
export const directionOf = (delta: number): 'credit' | 'debit' => (delta < 0 ? 'debit' : 'credit');

/** A posting as its caller asks for it: the idempotency key names it once per account. */
export interface Posting {
  account_id: string;
  reason: LedgerReason;
  /** Money moved, positive; the reason says which way. */
  amount_atomic: number;
  ref: string | null;
  actor: string;
  idempotency_key: string;
  order_id?: string | null;
  tx_signature?: string | null;
  corrects_id?: number | null;
}

export interface PostedEntry {
  id: number;
  account_id: string;
  created_at: Date;
  delta_atomic: number;
  reason: string;
  ref: string | null;
  actor: string;
  idempotency_key: string;
  order_id: string | null;
  tx_signature: string | null;
  corrects_id: number | null;
}

export const signedDelta = (posting: Posting): number =>
  isDebitReason(posting.reason) ? -posting.amount_atomic : posting.amount_atomic;

/** A positive, whole, safe number of atomic units; anything else is refused before a write. */
export function checkAmount(amount: number): Result<number, 'validation_failed'> {
  return Number.isSafeInteger(amount) && amount > 0
    ? ok(amount)
    : refuse('validation_failed', 'amount_atomic must be a positive whole number of atomic units');
}

/**
 * A retry with the same key must ask for the same movement; the actor may differ (a replica, an
 * operator's second attempt) without making it another posting.
 */
export function samePosting(entry: PostedEntry, posting: Posting): boolean {
  return (
    entry.delta_atomic === signedDelta(posting) &&
    entry.reason === posting.reason &&
    entry.ref === posting.ref &&
    entry.order_id === (posting.order_id ?? null) &&
    entry.tx_signature === (posting.tx_signature ?? null) &&
    entry.corrects_id === (posting.corrects_id ?? null)
  );
}

/** What may still be refunded on an order: what was spent on it less what was refunded already. */
export function refundable(spentAtomic: number, refundedAtomic: number): number {
  return Math.max(0, spentAtomic - refundedAtomic);
}

const ATOMIC_PER_USD = 1_000_000;

/**
 * Money as a person reads it: dollars with cents (`$25.00`, `$1,250.50`), with more places only
 * for a fraction of a cent (`$0.0125`). Integer arithmetic: never rounded.
 */
export function usd(atomic: number): string {
  const sign = atomic < 0 ? '-' : '';
  const whole = Math.floor(Math.abs(atomic) / ATOMIC_PER_USD);
  const places = String(Math.abs(atomic) % ATOMIC_PER_USD)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  const cents = places.padEnd(2, '0');
  return `${sign}$${whole.toLocaleString('en-US')}.${cents}`;
}
