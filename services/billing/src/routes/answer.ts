import type { Request } from 'express';
import { z } from 'zod';
import type { Refusal, Result } from '@meridian/contracts';
import { httpProblem, parseInput, type HttpProblem } from '@meridian/http-kit';

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

const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

/**
 * The request's `Idempotency-Key` header (the IETF draft's name, as Stripe uses it): a retry with
 * the same key answers the first outcome. Without one each request is a new purchase.
 */
export function idempotencyKeyOf(req: Request, fresh: () => string): string {
  const header = req.get('idempotency-key');
  return header === undefined ? fresh() : parseInput(idempotencyKeySchema, header, 'header Idempotency-Key');
}
