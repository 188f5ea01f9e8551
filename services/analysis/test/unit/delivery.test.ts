import { describe, expect, it } from '@jest/globals';
import type { AuditTier } from '@meridian/contracts';
import { fail, notRun, pass } from '../../src/domain/checks/finding.js';
import { PASSIVE_STAGES, undeliveredAmount, undeliveredStages } from '../../src/domain/delivery.js';

const PRICES = new Map<AuditTier, number | null>([
  ['audit_base', 9_000_000],
  ['audit_secure', 29_000_000],
  ['audit_review', 49_000_000],
]);
const passive = PASSIVE_STAGES.map((stage) => pass(`${stage}.ok`, stage, 'ok', 'seen'));
const activeNotRun = notRun('active.not-authorized', 'active', 'not run', 'no authorization', 'authorize');

describe('what a run delivers', () => {
  it('counts a stage delivered when one of its checks ran, a problem included', () => {
    const found = [...passive, fail('active.open-redirect', 'active', 'x', 'medium', 'e', 'r'), activeNotRun];
    expect(undeliveredStages('audit_secure', found)).toEqual([]);
  });

  it('counts a stage with only not-run findings, or none, as undelivered', () => {
    expect(undeliveredStages('audit_secure', [...passive, activeNotRun])).toEqual(['active']);
    expect(undeliveredStages('audit_review', passive)).toEqual(['active', 'review']);
    expect(undeliveredStages('audit_base', passive.slice(1))).toEqual(['dns']);
  });

  it('refunds the part of the price the undelivered stage stands for: secure less base', () => {
    expect(undeliveredAmount(['active'], PRICES, 29_000_000)).toBe(20_000_000);
    // In the review tier the active tests are still the secure tier's part; the review is delivered.
    expect(undeliveredAmount(['active'], PRICES, 49_000_000)).toBe(20_000_000);
    expect(undeliveredAmount(['dns', 'files'], PRICES, 29_000_000)).toBe(9_000_000);
    expect(undeliveredAmount(['dns', 'active'], PRICES, 29_000_000)).toBe(29_000_000);
  });

  it('never gives back more than was paid, and nothing when nothing is missing', () => {
    expect(undeliveredAmount(['active'], PRICES, 5_000_000)).toBe(5_000_000);
    expect(undeliveredAmount([], PRICES, 29_000_000)).toBe(0);
    expect(undeliveredAmount(['active'], new Map([['audit_secure', 29_000_000]]), 29_000_000)).toBe(
      29_000_000,
    );
  });
});
