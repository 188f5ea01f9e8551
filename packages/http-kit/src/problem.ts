import { problem, type Problem, type ProblemCode, type ProblemInit } from '@meridian/contracts';

// The builder lives in contracts so the bus answers RPC failures with the same bodies.
export {
  PROBLEM_KINDS,
  problem,
  setErrorsBase,
  type ProblemCode,
  type ProblemInit,
} from '@meridian/contracts';

/** Thrown by route code to answer a problem; the last error handler writes it. */
export class HttpProblem extends Error {
  constructor(
    readonly body: Problem,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail);
    this.name = 'HttpProblem';
  }
}

export function httpProblem(code: ProblemCode, detail: string, init: ProblemInit = {}): HttpProblem {
  const body = problem(code, detail, init);
  const headers: Record<string, string> =
    init.retryAfter !== undefined ? { 'retry-after': String(init.retryAfter) } : {};
  return new HttpProblem(body, headers);
}
