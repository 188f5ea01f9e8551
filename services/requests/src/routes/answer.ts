import type { Refusal, Result } from '@meridian/contracts';
import { HttpProblem, httpProblem } from '@meridian/http-kit';
import type { Upstream } from '../flows/book-consultation.js';

/** Every refusal a flow of this service answers, and how it reaches a client. */
export function problemOf(refusal: Refusal | Upstream): HttpProblem {
  if (refusal.code === 'upstream') return new HttpProblem((refusal as Upstream).problem);
  const { code, detail } = refusal;
  switch (code) {
    case 'validation_failed':
      return httpProblem('validation_failed', detail);
    case 'conflict':
      return httpProblem('conflict', detail);
    case 'not_found':
      return httpProblem('not_found', detail);
    case 'hold_limit':
      return httpProblem('conflict', detail, { category: 'hold_limit' });
    default:
      throw new Error(`no problem is defined for the refusal ${code}`);
  }
}

/** The value of an outcome, or its refusal thrown as the problem a client gets. */
export function valueOf<T>(result: Result<T> | Upstream): T {
  if (!result.ok) throw problemOf(result);
  return result.value;
}
