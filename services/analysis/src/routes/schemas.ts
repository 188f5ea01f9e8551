import { z } from 'zod';

/** Inputs of the platform's routes beyond the bodies and queries of packages/contracts. */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
export const runIdSchema = z.string().regex(/^run-[0-9a-f-]{36}$/, 'a run id (run-<uuid>)');
