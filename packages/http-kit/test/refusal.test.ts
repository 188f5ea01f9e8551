import { describe, expect, it } from '@jest/globals';
import { problem, refuse, upstream, type Refusal, type Result } from '@meridian/contracts';
import { HttpProblem, refusalProblem, valueOrProblem, type RefusalProblem } from '../src/index.js';
import { refusalTableFaults } from '../src/testing.js';

type ShopRefusal = 'sold_out' | 'weak_password' | 'rate_limited' | 'provider_refused' | 'not_found';

const SHOP_PROBLEMS = {
  sold_out: { kind: 'conflict', category: 'sold_out' },
  weak_password: { kind: 'validation_failed', field: 'body.password' },
  rate_limited: { kind: 'rate_limit', retryAfter: 1 },
  provider_refused: { kind: 'bad_request', category: 'provider_refused', detail: (d) => `Refused: ${d}.` },
  not_found: { kind: 'not_found' },
} as const satisfies Record<ShopRefusal, RefusalProblem>;

describe('a refusal answered through its service table', () => {
  it('answers the row of its code: status and title of the kind, the category named', () => {
    expect(refusalProblem(SHOP_PROBLEMS, refuse('sold_out', 'The last one went.'))).toEqual({
      type: 'https://meridian.example/errors/sold_out',
      title: 'Conflict',
      status: 409,
      detail: 'The last one went.',
      error_category: 'sold_out',
      retryable: false,
    });
    const missing = refusalProblem(SHOP_PROBLEMS, refuse('not_found', 'No such order.'));
    expect([missing.status, missing.error_category]).toEqual([404, 'not_found']);
  });

  it('names the field of the input and frames the detail as the row says', () => {
    const weak = refusalProblem(SHOP_PROBLEMS, refuse('weak_password', 'password: too common'));
    expect(weak.errors).toEqual([{ path: 'body.password', message: 'password: too common' }]);
    expect(weak.status).toBe(400);
    const refused = refusalProblem(SHOP_PROBLEMS, refuse('provider_refused', 'state mismatch'));
    expect(refused.detail).toBe('Refused: state mismatch.');
  });

  it("waits the refusal's own retry_after, else the row's", () => {
    const computed = refusalProblem(SHOP_PROBLEMS, {
      ...refuse('rate_limited', 'Slow down.'),
      retryAfter: 42,
    });
    expect([computed.status, computed.retry_after, computed.retryable]).toEqual([429, 42, true]);
    expect(refusalProblem(SHOP_PROBLEMS, refuse('rate_limited', 'Slow down.')).retry_after).toBe(1);
  });

  it("carries another service's problem through as it came", () => {
    const billing = problem('insufficient_credit', 'Top up first.', { instance: '/orders/1' });
    expect(refusalProblem(SHOP_PROBLEMS, upstream(billing))).toBe(billing);
  });

  it('throws the problem of a refused outcome and gives the value of an accepted one', () => {
    const refused: Result<number, 'sold_out'> = refuse('sold_out', 'Gone.');
    const thrown = (() => {
      try {
        return valueOrProblem(SHOP_PROBLEMS, refused);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(HttpProblem);
    expect((thrown as HttpProblem).body).toMatchObject({
      status: 409,
      error_category: 'sold_out',
      detail: 'Gone.',
    });
    expect(valueOrProblem(SHOP_PROBLEMS, { ok: true, value: 7 })).toBe(7);
  });

  it('refuses at compile time a code the table lacks, and names it to an unchecked caller', () => {
    const foreign = refuse('gone', 'Not ours.');
    // @ts-expect-error 'gone' is no code of the shop's table
    expect(() => refusalProblem(SHOP_PROBLEMS, foreign)).toThrow(
      'no problem is defined for the refusal gone',
    );
    const outcome: Result<number, 'sold_out' | 'hold_limit'> = refuse('hold_limit', 'Too many.');
    // @ts-expect-error a flow that may return 'hold_limit' cannot be answered with this table
    expect(() => valueOrProblem(SHOP_PROBLEMS, outcome)).toThrow(
      'no problem is defined for the refusal hold_limit',
    );
  });

  it('holds a service table to its closed union, and the generic refusal to the problem kinds', () => {
    const lacking = {
      sold_out: { kind: 'conflict' },
      // @ts-expect-error a table without a row for each code of its union does not compile
    } as const satisfies Record<'sold_out' | 'not_found', RefusalProblem>;
    const extra = {
      sold_out: { kind: 'conflict' },
      // @ts-expect-error nor does a row for a code outside it
      sold_again: { kind: 'conflict' },
    } as const satisfies Record<'sold_out', RefusalProblem>;
    // @ts-expect-error a kind that is not a problem kind has no status
    const unknownKind = { sold_out: { kind: 'sold_out' } } as const satisfies Record<
      'sold_out',
      RefusalProblem
    >;
    // @ts-expect-error Refusal without its codes takes the problem kinds, not any string
    const anyString: Refusal = refuse('hold_limit', 'Too many.');
    const kind: Refusal = refuse('conflict', 'Taken.');
    expect([lacking, extra, unknownKind, anyString.code, kind.code]).toHaveLength(5);
  });
});

describe('the spec check of a refusal table', () => {
  it('finds nothing wrong in a table the spec allows', () => {
    expect(refusalTableFaults(SHOP_PROBLEMS, { not_found: 404 })).toEqual([]);
  });

  it('names a spec category under another status, a 429 without its wait, and a declared status missed', () => {
    const wrong = {
      moved: { kind: 'conflict', category: 'moved' },
      throttled: { kind: 'bad_request', category: 'rate_limit' },
      no_wait: { kind: 'rate_limit', category: 'no_wait' },
      locked: { kind: 'forbidden', category: 'locked' },
    } as const satisfies Record<string, RefusalProblem>;
    const faults = refusalTableFaults(wrong, { locked: 401 });
    expect(faults).toEqual([
      'throttled answers 400 rate_limit: the spec answers rate_limit with 429',
      'no_wait answers 429 no_wait: a 429 is retryable and says retry_after',
      'locked answers 403 locked: the spec declares 401',
    ]);
  });
});
