import {
  dependencyUnavailable,
  isDependencyUnavailable,
  problemSchema,
  type RpcReply,
} from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
import { z } from 'zod';
import { errorMessage, withIncomingTrace } from './codec.js';
import { badRequest, internalError } from './problems.js';
import type { RpcHandler } from './types.js';

const replySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  // A problem's extension members (RFC 9457 3.2, e.g. billing's balance_atomic) travel with it.
  z.object({ ok: z.literal(false), problem: problemSchema.loose() }),
]);

/** Run a request handler in its caller's trace; a throw becomes a 500 problem that leaks nothing. */
export async function answerRequest(
  handler: RpcHandler<unknown, unknown>,
  body: string,
  headers: Record<string, string>,
  log: { logger?: Logger | undefined; subject: string },
): Promise<RpcReply<unknown>> {
  let req: unknown;
  try {
    req = JSON.parse(body);
  } catch {
    return { ok: false, problem: badRequest('The request body is not JSON') };
  }
  return withIncomingTrace(headers, async () => {
    try {
      return await handler(req, { headers });
    } catch (err) {
      // The database restarting or failing over: the caller may retry in a moment.
      if (isDependencyUnavailable(err)) {
        log.logger?.warn({ err, subject: log.subject }, 'rpc handler: a dependency is unavailable');
        return { ok: false, problem: dependencyUnavailable() };
      }
      log.logger?.error({ err, subject: log.subject }, 'rpc handler failed');
      return { ok: false, problem: internalError() };
    }
  });
}

/** A reply that is not `{ok, data}` or `{ok: false, problem}` is the server's bug, reported as such. */
export function decodeReply<T>(text: string, logger: Logger | undefined, subject: string): RpcReply<T> {
  try {
    const parsed = replySchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data as RpcReply<T>;
    logger?.error({ subject, issues: parsed.error.issues }, 'rpc reply has the wrong shape');
  } catch (err) {
    logger?.error({ subject, err: errorMessage(err) }, 'rpc reply is not JSON');
  }
  return { ok: false, problem: internalError() };
}
