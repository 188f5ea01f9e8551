import { describe, expect, it } from '@jest/globals';
import { mayCommission } from '../../src/domain/run-caps.js';

describe('the caps on the runs an account holds', () => {
  const caps = { unfinished: 5, openQuotes: 3 };

  it('lets a run paid from credit or covered through below five unfinished, and refuses the sixth', () => {
    for (const payment of ['credit', 'subscription']) {
      expect(mayCommission(caps, { unfinished: 4, openQuotes: 3 }, payment)).toEqual({
        ok: true,
        value: true,
      });
      expect(mayCommission(caps, { unfinished: 5, openQuotes: 0 }, payment)).toMatchObject({
        ok: false,
        code: 'too_many_runs',
      });
    }
  });

  it('counts deposit quotes on their own: three unpaid hold the cap, however many runs are unfinished', () => {
    expect(mayCommission(caps, { unfinished: 5, openQuotes: 2 }, 'deposit')).toEqual({
      ok: true,
      value: true,
    });
    expect(mayCommission(caps, { unfinished: 0, openQuotes: 3 }, 'deposit')).toMatchObject({
      ok: false,
      code: 'quote_limit',
    });
  });
});
