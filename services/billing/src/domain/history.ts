import type { z } from 'zod';
import type { billingHistoryRowSchema } from '@meridian/contracts';
import { directionOf, type PostedEntry } from './ledger.js';
import { paymentReason } from './orders.js';

export type HistoryRow = z.infer<typeof billingHistoryRowSchema>;

/**
 * Where a row sits in the history: newest first by time, a ledger row before a payment of the
 * same instant, then by id. A cursor is the position of the last row a page returned.
 */
export interface Position {
  at: Date;
  kind: 'ledger' | 'payment';
  id: number;
}

const RANK = { ledger: 1, payment: 0 } as const;

/** Sorts newest first in history order. */
export function compareNewestFirst(a: Position, b: Position): number {
  return b.at.getTime() - a.at.getTime() || RANK[b.kind] - RANK[a.kind] || b.id - a.id;
}

/**
 * For one source, the (at, id) bound its rows must be strictly below to come after `cursor`:
 * rows of the same instant come after the cursor only when their kind sorts after its kind.
 */
export function boundFor(
  kind: Position['kind'],
  cursor: Position | undefined,
): { at: Date; id: number } | undefined {
  if (!cursor) return undefined;
  if (kind === cursor.kind) return { at: cursor.at, id: cursor.id };
  return { at: cursor.at, id: RANK[kind] < RANK[cursor.kind] ? Number.MAX_SAFE_INTEGER : 0 };
}

export function ledgerRow(entry: PostedEntry): HistoryRow & { position: Position } {
  return {
    id: `ledger:${entry.id}`,
    kind: 'ledger',
    at: entry.created_at.toISOString(),
    reason: entry.reason,
    direction: directionOf(entry.delta_atomic),
    amount_atomic: Math.abs(entry.delta_atomic),
    balance_delta_atomic: entry.delta_atomic,
    ref: entry.order_id,
    tx_signature: entry.tx_signature,
    position: { at: entry.created_at, kind: 'ledger', id: entry.id },
  };
}

export interface OrderPayment {
  id: number;
  recorded_at: Date;
  amount_atomic: number;
  order_id: string | null;
  order_kind: string | null;
  tx_signature: string;
}

export function paymentRow(payment: OrderPayment): HistoryRow & { position: Position } {
  return {
    id: `payment:${payment.id}`,
    kind: 'payment',
    at: payment.recorded_at.toISOString(),
    reason: paymentReason(payment.order_kind),
    direction: 'payment',
    amount_atomic: payment.amount_atomic,
    balance_delta_atomic: 0,
    ref: payment.order_id,
    tx_signature: payment.tx_signature,
    position: { at: payment.recorded_at, kind: 'payment', id: payment.id },
  };
}

/**
 * How many rows, from the head, fit `budgetChars` once `baseChars` of envelope are spent; whole tail
 * rows are dropped, and the first row is always kept so a client paging on still moves forward.
 */
export function rowsThatFit(rows: readonly HistoryRow[], baseChars: number, budgetChars: number): number {
  let used = baseChars;
  let kept = 0;
  for (const row of rows) {
    used += JSON.stringify(row).length + (kept > 0 ? 1 : 0);
    if (used > budgetChars && kept > 0) break;
    kept++;
  }
  return kept;
}
