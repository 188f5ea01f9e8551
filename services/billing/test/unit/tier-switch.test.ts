import { describe, expect, it } from '@jest/globals';
import {
  currentOf,
  purchase,
  scheduledAfter,
  tierPricesOf,
  type Period,
} from '../../src/domain/subscription.js';

const PRICES = new Map([
  ['audit_base', 49_000_000],
  ['audit_secure', 149_000_000],
  ['audit_review', 399_000_000],
]);
const TIERS = [...PRICES.keys()];
const at = (iso: string) => new Date(iso);
const DAY = 86_400_000;

/** Buys `tiers` in order, `stepMs` apart, as buyPeriod applies a purchase; answers what was spent. */
function spendOf(
  tiers: readonly string[],
  start: Date,
  stepMs: number,
): { spent: number; periods: Period[] } {
  const periods: Period[] = [];
  let spent = 0;
  tiers.forEach((tier, i) => {
    const now = new Date(start.getTime() + i * stepMs);
    const planned = purchase(periods, tier, now, PRICES);
    if (!planned.ok) return;
    const { starts_at, expires_at, replaces } = planned.value;
    spent += PRICES.get(tier)!;
    if (replaces) {
      replaces.period.expires_at = now;
      spent -= replaces.unused_atomic;
    }
    periods.push({
      id: i + 1,
      tier,
      starts_at,
      expires_at,
      paid_atomic: PRICES.get(tier)!,
      ledger_entry_id: i + 1,
    });
  });
  return { spent, periods };
}

describe('switching audit tiers', () => {
  const period = (tier: string, from: string, to: string, id = 1): Period => ({
    id,
    tier,
    starts_at: at(from),
    expires_at: at(to),
    paid_atomic: PRICES.get(tier)!,
    ledger_entry_id: id,
  });

  it('schedules a switch down for the end of the paid period and gives nothing back', () => {
    const now = at('2026-11-12T00:00:00Z');
    const review = period('audit_review', '2026-11-10T00:00:00Z', '2026-12-10T00:00:00Z');
    const down = purchase([review], 'audit_base', now, PRICES);
    expect(down).toEqual({
      ok: true,
      value: { starts_at: at('2026-12-10T00:00:00Z'), expires_at: at('2027-01-10T00:00:00Z') },
    });
    const periods = [review, period('audit_base', '2026-12-10T00:00:00Z', '2027-01-10T00:00:00Z', 2)];
    expect(currentOf(periods, now)?.period.tier).toBe('audit_review');
    expect(scheduledAfter(periods, now)).toEqual({
      tier: 'audit_base',
      starts_at: at('2026-12-10T00:00:00Z'),
    });
    expect(currentOf(periods, at('2026-12-11T00:00:00Z'))?.period.tier).toBe('audit_base');
  });

  it('upgrades now with the unused part of the cheaper period given back', () => {
    const now = at('2026-11-25T00:00:00Z');
    const base = period('audit_base', '2026-11-10T00:00:00Z', '2026-12-10T00:00:00Z');
    expect(purchase([base], 'audit_review', now, PRICES)).toMatchObject({
      ok: true,
      value: { starts_at: now, replaces: { unused_atomic: 24_500_000 } },
    });
  });

  it('refuses an upgrade over months paid ahead, a scheduled switch down included', () => {
    const now = at('2026-11-12T00:00:00Z');
    const periods = [
      period('audit_secure', '2026-11-10T00:00:00Z', '2026-12-10T00:00:00Z'),
      period('audit_base', '2026-12-10T00:00:00Z', '2027-01-10T00:00:00Z', 2),
    ];
    expect(purchase(periods, 'audit_review', now, PRICES)).toMatchObject({ ok: false, code: 'conflict' });
  });

  it('never costs less than the dearest tier held, whatever the switches within a period', () => {
    const start = at('2026-11-01T00:00:00Z');
    // Every sequence of five purchases of the three tiers, a few hours or days apart.
    const sequences: string[][] = [[]];
    for (let n = 0; n < 5; n++)
      sequences.splice(0, sequences.length, ...sequences.flatMap((s) => TIERS.map((t) => [...s, t])));
    for (const stepMs of [3_600_000, 5 * DAY])
      for (const tiers of sequences) {
        const { spent, periods } = spendOf(tiers, start, stepMs);
        const dearest = Math.max(...periods.map((p) => PRICES.get(p.tier)!));
        expect(spent).toBeGreaterThanOrEqual(dearest);
      }
  });

  it('reads the tier prices of one product from the price table', () => {
    const table = new Map([
      ['audit:audit_base', 1],
      ['plan:pro', 2],
      ['run:audit_base', 3],
    ]);
    expect([...tierPricesOf(table, 'audit:audit_review')]).toEqual([['audit_base', 1]]);
  });
});
