import type { Refusal, Result } from '@meridian/contracts';
import { httpProblem, type HttpProblem } from '@meridian/http-kit';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export function problemOf(refusal: Refusal): HttpProblem {
  const { code, detail } = refusal;
  switch (code) {
    case 'insufficient_credit':
      return httpProblem('insufficient_credit', detail);
    case 'invalid_cursor':
      return httpProblem('invalid_cursor', detail, { errors: [{ path: 'query.cursor', message: detail }] });
    case 'validation_failed':
      return httpProblem('validation_failed', detail);
    case 'conflict':
      return httpProblem('conflict', detail);
    case 'not_found':
      return httpProblem('not_found', detail);
    case 'deposits_off':
      return httpProblem('service_unavailable', detail, { category: 'deposits_unavailable' });
    default:
      throw new Error(`no problem is defined for the refusal ${code}`);
  }
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: Result<T>): T {
  if (!result.ok) throw problemOf(result);
  return result.value;
}
