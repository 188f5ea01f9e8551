import { ok, refuse, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import { envelope, signCursor, verifyCursor, type Envelope } from '@meridian/http-kit';
import { orderPaymentsBefore } from '../db/repositories/deposits.js';
import { entriesBefore } from '../db/repositories/ledger.js';
import {
  boundFor,
  compareNewestFirst,
  ledgerRow,
  paymentRow,
  rowsThatFit,
  type HistoryRow,
  type Position,
} from '../domain/history.js';
import type { BillingDeps } from '../deps.js';

/** About four characters of JSON per token, as the data service estimates. */
const CHARS_PER_TOKEN = 4;

export interface HistoryQuery {
  cursor?: string;
  limit: number;
  max_response_tokens: number;
}

/**
 * The billing history of portal 2.1: the caller's ledger movements and the direct on-chain
 * payments of the caller's own orders, merged newest first. Unmatched deposits and other accounts'
 * rows are never read. The cursor is signed and bound to the account, so it cannot be forged or
 * replayed by another caller.
 */
export async function readHistory(
  deps: BillingDeps,
  accountId: string,
  query: HistoryQuery,
): Promise<Result<Envelope<HistoryRow[]>, BillingRefusal>> {
  const cursor =
    query.cursor === undefined ? undefined : positionOf(query.cursor, accountId, deps.config.cursorKey);
  if (cursor === null)
    return refuse('invalid_cursor', 'cursor is not a cursor this endpoint gave this account.');
  const [entries, payments] = await Promise.all([
    entriesBefore(deps.db, accountId, query.limit + 1, boundFor('ledger', cursor)),
    orderPaymentsBefore(deps.db, accountId, query.limit + 1, boundFor('payment', cursor)),
  ]);
  const merged = [...entries.map(ledgerRow), ...payments.map(paymentRow)].sort((a, b) =>
    compareNewestFirst(a.position, b.position),
  );
  const page = merged.slice(0, query.limit);
  const bare = page.map(({ position: _, ...row }) => row);
  const key = deps.config.cursorKey;
  const answer = (kept: number) =>
    envelope(
      bare.slice(0, kept),
      {
        next_cursor:
          merged.length > kept && kept > 0 ? cursorOf(page[kept - 1]!.position, accountId, key) : null,
        truncated: kept < page.length,
      },
      { method: "Read from billing's ledger and its record of deposits that paid this account's orders." },
    );
  const budget = query.max_response_tokens * CHARS_PER_TOKEN;
  // The envelope's own size is measured with a cursor in it, as every truncated page has one.
  const base =
    JSON.stringify(answer(0)).length + (page[0] ? cursorOf(page[0].position, accountId, key).length : 0);
  let kept = rowsThatFit(bare, base, budget);
  while (kept > 1 && JSON.stringify(answer(kept)).length > budget) kept--;
  return ok(answer(kept));
}

function cursorOf(position: Position, accountId: string, key: string): string {
  return signCursor({ a: accountId, t: position.at.toISOString(), k: position.kind, i: position.id }, key);
}

/** The position a cursor names; null when it is forged, altered or another account's. */
function positionOf(cursor: string, accountId: string, key: string): Position | null {
  const state = verifyCursor(cursor, key);
  if (!state || state.a !== accountId || typeof state.t !== 'string' || typeof state.i !== 'number')
    return null;
  if (state.k !== 'ledger' && state.k !== 'payment') return null;
  const at = new Date(state.t);
  return Number.isNaN(at.getTime()) ? null : { at, kind: state.k, id: state.i };
}
