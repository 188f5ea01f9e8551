import { problem, type Problem, type ProblemCode, type Refusal, type Upstream } from '@meridian/contracts';
import { HttpProblem } from './problem.js';

/** How one refusal code of a service reaches a client: a row of the service's table. */
export interface RefusalProblem {
  /** The problem kind: status, title and retryable come from PROBLEM_KINDS. */
  kind: ProblemCode;
  /** The error_category (and the type URI's last segment) when it is not the kind. */
  category?: string;
  /** Seconds to wait, unless the refusal carries its own wait. */
  retryAfter?: number;
  /** The input the refusal is about: named in `errors` with the detail as its message. */
  field?: string;
  /** The detail as a client reads it, when the flow's sentence is only a part of it. */
  detail?: (detail: string) => string;
}

/**
 * A refusal as a flow returns it: a code of the service's closed union `C` (a rate limit's with
 * the wait it computed), or another service's problem carried through.
 */
export type ServiceRefusal<C extends string> = (Refusal<C> & { retryAfter?: number }) | Upstream;

/**
 * The one way a refusal becomes a problem body: the row of `problems` for its code. `problems`
 * is the service's table, `satisfies Record<Code, RefusalProblem>`, so a flow returning a code
 * the table lacks does not compile (the code is checked against the table, not the other way).
 */
export function refusalProblem<C extends string>(
  problems: Readonly<Record<C, RefusalProblem>>,
  refusal: ServiceRefusal<NoInfer<C>>,
): Problem {
  if ('problem' in refusal) return refusal.problem;
  const row: RefusalProblem | undefined = problems[refusal.code];
  // Only a caller the compiler did not check (a cast, plain JavaScript) gets here without a row.
  if (!row) throw new Error(`no problem is defined for the refusal ${refusal.code}`);
  const detail = row.detail ? row.detail(refusal.detail) : refusal.detail;
  const retryAfter = refusal.retryAfter ?? row.retryAfter;
  return problem(row.kind, detail, {
    ...(row.category !== undefined ? { category: row.category } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(row.field !== undefined ? { errors: [{ path: row.field, message: refusal.detail }] } : {}),
  });
}

/** The value of an outcome, or its refusal thrown as the problem a client gets (see refusalProblem). */
export function valueOrProblem<T, C extends string>(
  problems: Readonly<Record<C, RefusalProblem>>,
  result: { ok: true; value: T } | ServiceRefusal<NoInfer<C>>,
): T {
  if (!result.ok) throw new HttpProblem(refusalProblem(problems, result));
  return result.value;
}
