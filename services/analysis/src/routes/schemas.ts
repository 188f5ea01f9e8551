import { z } from 'zod';

/** Inputs of the platform's routes beyond the bodies and queries of packages/contracts. */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
/** A run id as the path gives it: one that names no run of the caller's is a 404, as for the report routes. */
export const runIdSchema = z.string().min(1).max(100);
