import { z } from 'zod';
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

/**
 * The parameters of a query that a route does not take, in the order given. A typo is never read
 * as the parameter's absence: `?entty=BTC-USDT` would otherwise answer the default entity.
 */
export function unknownParameters(query: object, allowed: readonly string[]): string[] {
  return Object.keys(query).filter((name) => !allowed.includes(name));
}

/**
 * The 400 problem of unknown query parameters: names each (never its value, which may be a
 * credential put in the wrong place) and lists the parameters the route takes.
 */
export function unknownParametersProblem(unknown: readonly string[], allowed: readonly string[]) {
  const takes =
    allowed.length > 0 ? `this route takes ${allowed.join(', ')}` : 'this route takes no query parameter';
  const names = unknown.map(shownName);
  const errors = names.map((name) => ({ path: `query.${name}`, message: `unknown parameter; ${takes}` }));
  return httpProblem(
    'validation_failed',
    `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')}; ${takes}.`,
    { errors },
  );
}

/** No parameter name is that long; a longer one may be a key pasted as `?<key>`, so it is not echoed. */
const LONGEST_SHOWN_NAME = 40;

function shownName(name: string): string {
  return name.length <= LONGEST_SHOWN_NAME ? name : `(a name of ${name.length} characters)`;
}

/**
 * Parses a query with zod after refusing the parameters the schema does not name, so a misspelt
 * or misplaced parameter is a 400 rather than silently ignored.
 */
export function parseQuery<S extends z.ZodObject>(
  schema: S,
  query: object,
  where = 'query',
  // What the refusal lists as taken, when the route takes fewer than a schema shared by routes names
  // (those left out are refused by the route itself, with its own reason).
  listed: readonly string[] = Object.keys(schema.shape),
): z.infer<S> {
  const unknown = unknownParameters(query, Object.keys(schema.shape));
  if (unknown.length > 0) throw unknownParametersProblem(unknown, listed);
  return parseInput(schema, query, where);
}

/** The query schema of a route that takes no parameter: any one given is refused by parseQuery. */
export const NO_PARAMETERS = z.object({});

const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

/**
 * The `Idempotency-Key` header of a purchase (the IETF draft's name, as Stripe uses it): the same
 * key answers the first purchase. Absent: undefined, and every request is a purchase of its own.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  return header === undefined
    ? undefined
    : parseInput(idempotencyKeySchema, header, 'header.Idempotency-Key');
}
