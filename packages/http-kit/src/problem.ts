import type { ServerResponse } from 'node:http';
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

/** Answer fields as node's flat [name, value, ...] list, or as a record. */
export type AnswerFields = readonly string[] | Readonly<Record<string, string>>;

function hasField(fields: readonly string[], name: string): boolean {
  for (let i = 0; i < fields.length; i += 2) if (fields[i]!.toLowerCase() === name) return true;
  return false;
}

/**
 * The one writer of application/problem+json answers, for express and node:http alike: the
 * status and body of the problem, `fields`, and Retry-After from `retry_after` unless `fields`
 * carry one already (a refused rate limit has it among its rate-limit fields). Fields set earlier
 * with setHeader stay, those given here win.
 */
export function writeProblem(res: ServerResponse, body: Problem, fields: AnswerFields = []): void {
  const text = JSON.stringify(body);
  const head: string[] = [];
  if (Array.isArray(fields)) head.push(...(fields as readonly string[]));
  else for (const [name, value] of Object.entries(fields)) head.push(name, value);
  if (body.retry_after !== undefined && !hasField(head, 'retry-after'))
    head.push('retry-after', String(body.retry_after));
  head.push('content-type', 'application/problem+json', 'content-length', String(Buffer.byteLength(text)));
  res.writeHead(body.status, head);
  res.end(text);
}
