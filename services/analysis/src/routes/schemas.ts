import { z } from 'zod';

/** Inputs of the platform's routes beyond the bodies and queries of packages/contracts. */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
/**
 * A run id as the path gives it: one that names no run of the caller's is a 404, as for the report
 * routes. Printable ASCII, as every run id is (`run-<uuid>`): Postgres refuses a text holding NUL,
 * which must be the client's 400, not our 500.
 */
export const runIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
