import { z } from 'zod';

/**
 * A run id as the path gives it (beyond the bodies and queries of packages/contracts): one that
 * names no run of the caller's is a 404, as for the report routes. Printable ASCII, as every run
 * id is (`run-<uuid>`): Postgres refuses a text holding NUL, which must be the client's 400, not
 * our 500.
 */
export const runIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
