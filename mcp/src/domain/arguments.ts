import { z } from 'zod';
import { DEFAULT_MAX_RESPONSE_TOKENS, TOKEN_BOUNDS } from './tokens.js';

/**
 * The arguments every tool takes besides its enumerations (catalog-enums.ts): the token budget
 * of the answer and the cursor of the previous page.
 */
export const maxResponseTokens = z
  .number()
  .int()
  .min(TOKEN_BOUNDS.min)
  .max(TOKEN_BOUNDS.max)
  .default(DEFAULT_MAX_RESPONSE_TOKENS)
  .describe(
    `Upper bound of the answer in tokens (≈ 4 characters of JSON each), ${TOKEN_BOUNDS.min} to ${TOKEN_BOUNDS.max}, default ${DEFAULT_MAX_RESPONSE_TOKENS}: whole rows are dropped to fit and meta.next_cursor continues`,
  );

export const cursor = z
  .string()
  .min(1)
  .max(2048)
  .optional()
  .describe('meta.next_cursor of the previous answer to the same question, to read the rows it left out');
