import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { inputRefusal, isResolverRefusal } from '../../src/domain/refusals.js';
import { FIRST_LOAD_RETRY_AFTER_S } from '../../src/jobs/first-load.js';
import { DATA_PROBLEMS, dataProblem } from '../../src/routes/answer.js';

describe("data's refusals", () => {
  it('answers each with a status and category the spec allows, and the statuses data 7 declares', () => {
    const declared = { unauthorized: 401, tier_forbidden: 403, not_yet_available: 404 };
    expect(refusalTableFaults(DATA_PROBLEMS, declared)).toEqual([]);
  });

  it('tells an unknown metric from a planned one: a routing 404 against not_yet_available', () => {
    const unknown = dataProblem({ ok: false, code: 'unknown_metric', detail: 'No metric a/b/c' });
    const planned = dataProblem({ ok: false, code: 'not_yet_available', detail: 'a/b/c is planned' });
    expect([unknown.status, unknown.error_category]).toEqual([404, 'route_not_found']);
    expect([planned.status, planned.error_category]).toEqual([404, 'not_yet_available']);
  });

  it('names the query parameter at fault in the detail and in errors', () => {
    const refusal = inputRefusal({ path: 'query.entity', message: 'BTC-EUR is not listed' });
    expect(dataProblem(refusal)).toMatchObject({
      status: 400,
      error_category: 'validation_failed',
      detail: 'query.entity: BTC-EUR is not listed',
      errors: [{ path: 'query.entity', message: 'BTC-EUR is not listed' }],
    });
  });

  it('asks a caller to come back while the first load runs, instead of saying nothing is stored', () => {
    const body = dataProblem({ ok: false, code: 'first_load_running', detail: 'still loading' });
    expect(body).toMatchObject({ status: 503, retryable: true, retry_after: FIRST_LOAD_RETRY_AFTER_S });
  });

  it("keeps a resolver to its own refusals: the caller's and the cursor's belong to the flow", () => {
    expect(['not_found', 'validation_failed'].every(isResolverRefusal)).toBe(true);
    expect(['unauthorized', 'tier_forbidden', 'invalid_cursor', 'conflict'].some(isResolverRefusal)).toBe(
      false,
    );
  });
});
