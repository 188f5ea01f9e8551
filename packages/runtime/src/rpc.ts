import type { z } from 'zod';
import type { Problem, Refusal, Result, RpcReply } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';

/**
 * A request/reply handler of the house: the request parsed with `schema` (a 400 problem naming
 * each bad field otherwise), the flow run, and its Result answered as `{ok: true, data}` or
 * `{ok: false, problem}` through the service's own `problemOf`, which takes the flow's codes.
 */
export function resultHandler<S extends z.ZodType, T, C extends string>(
  schema: S,
  run: (input: z.infer<S>) => Promise<Result<T, C>>,
  problemOf: (refusal: Refusal<C>) => Problem,
) {
  return async (input: unknown): Promise<RpcReply<T>> => {
    const parsed = schema.safeParse(input);
    if (!parsed.success)
      return {
        ok: false,
        problem: problem(
          'validation_failed',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        ),
      };
    const result = await run(parsed.data);
    return result.ok ? { ok: true, data: result.value } : { ok: false, problem: problemOf(result) };
  };
}
