import { z } from 'zod';
import { INTERVALS } from '../domain/series/bar.js';
import { MAX_RESPONSE_TOKENS } from '../domain/series/shape.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Query parameters of the data endpoint (data-api-interface 4.1). */
export const dataQuerySchema = z.object({
  entity: z.string().min(1).max(64).optional(),
  source: z
    .string()
    .regex(/^[a-z0-9_]{1,40}$/, 'a venue identifier such as binanceus')
    .optional(),
  series: bool.optional(),
  interval: z
    .enum(INTERVALS as [string, ...string[]], { message: `one of ${INTERVALS.join(', ')}` })
    .optional(),
  fields: z
    .string()
    .max(500)
    .transform((f) =>
      f
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((f) => f.length > 0, 'at least one column')
    .optional(),
  format: z.enum(['table', 'json']).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  max_response_tokens: z.coerce
    .number()
    .int()
    .min(MAX_RESPONSE_TOKENS.min)
    .max(MAX_RESPONSE_TOKENS.max)
    .optional(),
});

export type DataQuery = z.infer<typeof dataQuerySchema>;
