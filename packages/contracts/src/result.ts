import type { Problem, ProblemCode } from './problem.js';

/**
 * Expected refusals inside the domain are values, never exceptions. `C` is a closed union: a
 * service names its own (and its table of problems covers every code of it); left out, the codes
 * are the house's problem kinds, each of which has its status in PROBLEM_KINDS.
 */
export type Refusal<C extends string = ProblemCode> = { ok: false; code: C; detail: string };
export type Result<T, C extends string = ProblemCode> = { ok: true; value: T } | Refusal<C>;

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const refuse = <C extends string>(code: C, detail: string): Refusal<C> => ({
  ok: false,
  code,
  detail,
});

/** A refusal that carries another service's problem (402, 409, 503...) through to the client as it came. */
export type Upstream = Refusal<'upstream'> & { problem: Problem };
export const upstream = (problem: Problem): Upstream => ({
  ok: false,
  code: 'upstream',
  detail: problem.detail,
  problem,
});
