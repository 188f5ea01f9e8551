import { z } from 'zod';

/** RFC 9457 problem body with the fields of data-api-interface section 7. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  error_category: z.string(),
  retryable: z.boolean(),
  retry_after: z.number().int().optional(),
  instance: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export type Problem = z.infer<typeof problemSchema>;

/** A reply on a request/reply subject: `{ok: true, data}` or `{ok: false, problem}`. */
export type RpcReply<T> = { ok: true; data: T } | { ok: false; problem: Problem };

export function rpcReplySchema<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), data }),
    z.object({ ok: z.literal(false), problem: problemSchema }),
  ]);
}
