import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { usd } from '../../src/domain/ledger.js';
import { refuseWithAmounts } from '../../src/domain/refusals.js';
import { BILLING_PROBLEMS, billingProblem } from '../../src/routes/answer.js';

describe("billing's refusals", () => {
  it('answers each with a status and category the spec allows, and the statuses portal 7 declares', () => {
    const declared = { insufficient_credit: 402, invalid_cursor: 400, validation_failed: 400 };
    expect(refusalTableFaults(BILLING_PROBLEMS, declared)).toEqual([]);
  });

  it('says money in dollars with cents, never rounding a fraction of a cent away', () => {
    expect(usd(25_000_000)).toBe('$25.00');
    expect(usd(199_000_000)).toBe('$199.00');
    expect(usd(0)).toBe('$0.00');
    expect(usd(1_250_500_000)).toBe('$1,250.50');
    expect(usd(12_500)).toBe('$0.0125');
    expect(usd(9_000_001)).toBe('$9.000001');
    expect(usd(-49_000_000)).toBe('-$49.00');
  });

  it('gives the sums a refusal names to machines as problem members, beside the detail in dollars', () => {
    const refusal = refuseWithAmounts(
      'insufficient_credit',
      'The credit balance is $25.00; this needs $199.00.',
      {
        balance_atomic: 25_000_000,
        needed_atomic: 199_000_000,
      },
    );
    expect(billingProblem(refusal)).toMatchObject({
      status: 402,
      error_category: 'insufficient_credit',
      detail: 'The credit balance is $25.00; this needs $199.00.',
      balance_atomic: 25_000_000,
      needed_atomic: 199_000_000,
    });
  });
});
