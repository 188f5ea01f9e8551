import { describe, expect, it } from '@jest/globals';
import { memoMeaning } from '../../src/domain/deposit.js';
import {
  boundFor,
  compareNewestFirst,
  rowsThatFit,
  type HistoryRow,
  type Position,
} from '../../src/domain/history.js';
import { checkAmount, refundable, samePosting, signedDelta, type Posting } from '../../src/domain/ledger.js';
import { addMonth, purchase, unusedPart, type Period } from '../../src/domain/subscription.js';

const ACCOUNT = '0b7e4a52-8a43-4d4f-9d1c-6f5a7f0e2b11';
const PRICES = new Map([
  ['audit_base', 49_000_000],
  ['audit_secure', 149_000_000],
  ['audit_review', 399_000_000],
]);

describe('postings', () => {
  const posting: Posting = {
    account_id: ACCOUNT,
    reason: 'report',
    amount_atomic: 9_000_000,
    ref: 'run-abcdef12',
    actor: 'service',
    idempotency_key: 'order:run-abcdef12',
    order_id: 'run-abcdef12',
  };
  const entry = {
    id: 7,
    account_id: ACCOUNT,
    created_at: new Date(),
    delta_atomic: -9_000_000,
    reason: 'report',
    ref: 'run-abcdef12',
    actor: 'other',
    idempotency_key: 'order:run-abcdef12',
    order_id: 'run-abcdef12',
    tx_signature: null,
    corrects_id: null,
  };

  it('debits spends and revokes, credits top-ups, grants and refunds', () => {
    expect(signedDelta(posting)).toBe(-9_000_000);
    expect(signedDelta({ ...posting, reason: 'admin_revoke' })).toBe(-9_000_000);
    expect(signedDelta({ ...posting, reason: 'refund' })).toBe(9_000_000);
    expect(signedDelta({ ...posting, reason: 'topup_usdc' })).toBe(9_000_000);
  });

  it('takes a retry by another actor as the same posting, and any other change as a different one', () => {
    expect(samePosting(entry, posting)).toBe(true);
    expect(samePosting(entry, { ...posting, amount_atomic: 1 })).toBe(false);
    expect(samePosting(entry, { ...posting, ref: 'x' })).toBe(false);
    expect(samePosting(entry, { ...posting, reason: 'booking' })).toBe(false);
  });

  it('refuses amounts that are not positive whole atomic units', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(checkAmount(bad).ok).toBe(false);
    expect(checkAmount(1).ok).toBe(true);
  });

  it('never refunds more than was spent', () => {
    expect(refundable(9, 0)).toBe(9);
    expect(refundable(9, 4)).toBe(5);
    expect(refundable(9, 12)).toBe(0);
  });
});

describe('deposit memos', () => {
  it('credits only top-<account_id>, keeps the bare id for the retired rail and looks up order ids', () => {
    expect(memoMeaning(`top-${ACCOUNT}`)).toEqual({ kind: 'topup', account_id: ACCOUNT });
    expect(memoMeaning(` TOP-${ACCOUNT.toUpperCase()} `)).toEqual({ kind: 'topup', account_id: ACCOUNT });
    expect(memoMeaning(ACCOUNT)).toEqual({ kind: 'retired_rail', account_id: ACCOUNT });
    expect(memoMeaning('run-8f3a9c2d41')).toEqual({ kind: 'order', order_id: 'run-8f3a9c2d41' });
    for (const other of [null, '', 'thanks!', `top-${ACCOUNT}x`, 'top-123', 'top up please'])
      expect(memoMeaning(other)).toEqual({ kind: 'unmatched' });
  });
});

describe('subscription periods', () => {
  const at = (iso: string) => new Date(iso);
  const period = (tier: string, from: string, to: string, id = 1): Period => ({
    id,
    tier,
    starts_at: at(from),
    expires_at: at(to),
    paid_atomic: 30_000_000,
    ledger_entry_id: id,
  });

  it('adds a calendar month, ending on the last day of a shorter month', () => {
    expect(addMonth(at('2026-01-31T10:00:00Z')).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonth(at('2028-01-31T10:00:00Z')).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonth(at('2026-12-15T00:00:00Z')).toISOString()).toBe('2027-01-15T00:00:00.000Z');
  });

  it('starts now without a current period, and renews after the run of the same tier', () => {
    const now = at('2026-11-25T00:00:00Z');
    expect(purchase([], 'audit_base', now, PRICES)).toEqual({
      ok: true,
      value: { starts_at: now, expires_at: at('2026-12-25T00:00:00Z') },
    });
    const running = [
      period('audit_base', '2026-11-10T00:00:00Z', '2026-12-10T00:00:00Z'),
      period('audit_base', '2026-12-10T00:00:00Z', '2027-01-10T00:00:00Z', 2),
    ];
    expect(purchase(running, 'audit_base', now, PRICES)).toMatchObject({
      ok: true,
      value: { starts_at: at('2027-01-10T00:00:00Z') },
    });
  });

  it('switches tier now, giving back the unused part pro rata, but not over months paid ahead', () => {
    const now = at('2026-11-25T00:00:00Z');
    const current = period('audit_base', '2026-11-10T00:00:00Z', '2026-12-10T00:00:00Z');
    const switched = purchase([current], 'audit_secure', now, PRICES);
    expect(switched).toMatchObject({
      ok: true,
      value: { starts_at: now, replaces: { unused_atomic: 15_000_000 } },
    });
    expect(unusedPart(current, at('2026-12-11T00:00:00Z'))).toBe(0);
    const ahead = [current, period('audit_base', '2026-12-10T00:00:00Z', '2027-01-10T00:00:00Z', 2)];
    expect(purchase(ahead, 'audit_secure', now, PRICES)).toMatchObject({ ok: false, code: 'conflict' });
  });

  it('caps the months paid ahead', () => {
    const now = at('2026-01-01T00:00:00Z');
    let from = now;
    const periods: Period[] = [];
    for (let i = 0; i < 12; i++) {
      const to = addMonth(from);
      periods.push(period('audit_base', from.toISOString(), to.toISOString(), i + 1));
      from = to;
    }
    expect(purchase(periods, 'audit_base', now, PRICES)).toMatchObject({ ok: false, code: 'conflict' });
  });
});

describe('history order', () => {
  const pos = (iso: string, kind: Position['kind'], id: number): Position => ({
    at: new Date(iso),
    kind,
    id,
  });

  it('puts newer rows first, a ledger row before a payment of the same instant, then higher ids', () => {
    const rows = [
      pos('2026-01-01T00:00:00Z', 'payment', 9),
      pos('2026-01-02T00:00:00Z', 'ledger', 1),
      pos('2026-01-01T00:00:00Z', 'ledger', 3),
      pos('2026-01-01T00:00:00Z', 'ledger', 4),
    ];
    expect(rows.sort(compareNewestFirst).map((p) => `${p.kind}:${p.id}`)).toEqual([
      'ledger:1',
      'ledger:4',
      'ledger:3',
      'payment:9',
    ]);
  });

  it('bounds each source so that rows of the cursor instant are neither lost nor repeated', () => {
    const cursor = pos('2026-01-01T00:00:00Z', 'ledger', 3);
    expect(boundFor('ledger', cursor)).toEqual({ at: cursor.at, id: 3 });
    expect(boundFor('payment', cursor)!.id).toBe(Number.MAX_SAFE_INTEGER);
    expect(boundFor('ledger', pos('2026-01-01T00:00:00Z', 'payment', 9))!.id).toBe(0);
    expect(boundFor('ledger', undefined)).toBeUndefined();
  });

  it('drops whole tail rows to fit, always keeping the first', () => {
    const row = {
      id: 'ledger:1',
      kind: 'ledger',
      at: '2026-01-01T00:00:00.000Z',
      reason: 'report',
      direction: 'debit',
      amount_atomic: 1,
      balance_delta_atomic: -1,
      ref: null,
      tx_signature: null,
    } satisfies HistoryRow;
    const size = JSON.stringify(row).length;
    expect(rowsThatFit([row, row, row], 10, 10 + size * 2 + 1)).toBe(2);
    expect(rowsThatFit([row, row, row], 10, 5)).toBe(1);
    expect(rowsThatFit([], 10, 5)).toBe(0);
  });
});
