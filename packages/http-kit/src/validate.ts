import type { z } from 'zod';
import { httpProblem } from './problem.js';

/** Parses input with zod; a failure becomes a 400 problem naming every bad field and why. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = 'body'): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  throw httpProblem('validation_failed', detail, { errors });
}
