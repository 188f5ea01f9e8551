import { describe, expect, it } from '@jest/globals';
import type { Problem } from '../../src/pages/api.js';
import { dollars, reasonWords } from '../../src/pages/money.js';
import { problemWords } from '../../src/pages/problems.js';

const refusal = (p: Partial<Problem>): Problem => ({ title: 'Title', status: 400, ...p });

describe('refusals in words', () => {
  it("says billing's insufficient credit in dollars, from its members or from an older billing's detail", () => {
    const older = refusal({
      title: 'Insufficient credit',
      status: 402,
      error_category: 'insufficient_credit',
      detail: 'The credit balance is 25000000 atomic units; this needs 199000000.',
    });
    const newer = refusal({
      status: 402,
      error_category: 'insufficient_credit',
      detail: 'The credit balance is $25.00; this needs $199.00.',
      balance_atomic: 25_000_000,
      needed_atomic: 199_000_000,
    });
    for (const p of [older, newer])
      expect(problemWords(p)).toBe(
        'Your credit does not cover this: it costs $199.00 and your balance is $25.00. Top up on the Credit page, then try again.',
      );
  });

  it('never shows an HTTP title, and says a status or category a person understands', () => {
    expect(
      problemWords(refusal({ title: 'Unauthorized', status: 401, error_category: 'unauthorized' })),
    ).toBe('You are not signed in, or your session has ended: sign in again.');
    expect(
      problemWords(
        refusal({ title: 'Internal error', status: 500, error_category: 'internal', detail: 'boom' }),
      ),
    ).toBe('Something went wrong on our side: try again in a minute.');
    expect(
      problemWords(
        refusal({
          title: 'Invalid input',
          error_category: 'validation_failed',
          detail: 'body.starts_at: Invalid datetime',
          errors: [{ path: 'body.starts_at', message: 'Invalid datetime' }],
        }),
      ),
    ).toBe('Please check the starts at: Invalid datetime');
    expect(
      problemWords(
        refusal({
          title: 'Conflict',
          status: 409,
          error_category: 'conflict',
          detail: 'That slot was just booked; pick another.',
        }),
      ),
    ).toBe('That slot was just booked; pick another.');
    expect(
      problemWords(
        refusal({ status: 409, error_category: 'conflict', detail: 'Order x has 5000000 atomic units left' }),
      ),
    ).toBe('Order x has $5.00 left');
    expect(problemWords(refusal({ status: 429, error_category: 'rate_limit', retry_after: 7 }))).toBe(
      'Too many requests at once: wait 7 seconds and try again.',
    );
  });
});

describe('money in words', () => {
  it('writes dollars exactly, with at least cents', () => {
    expect([
      dollars(0),
      dollars(199_000_000),
      dollars(-49_000_000),
      dollars(10_000),
      dollars(18_999_989),
    ]).toEqual(['$0.00', '$199.00', '-$49.00', '$0.01', '$18.999989']);
  });

  it('names each ledger line, the unused part of a changed plan as a plan change credit', () => {
    expect(reasonWords('refund', 'sub-kpOyYlfbW')).toBe('Plan change credit');
    expect(reasonWords('refund', 'booking-1')).toBe('Refund');
    expect(['topup_usdc', 'report', 'admin_grant', 'data_plan'].map((r) => reasonWords(r))).toEqual([
      'Top-up (USDC)',
      'Audit report',
      'Operator grant',
      'Data plan',
    ]);
    expect(reasonWords('something_new')).toBe('something new');
  });
});
