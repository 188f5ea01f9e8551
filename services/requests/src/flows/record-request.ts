import { EVENTS, ok, type Result } from '@meridian/contracts';
import type { RequestsRefusal } from '../domain/refusals.js';
import { upsertRequest } from '../db/repositories/service-requests.js';
import { requestKey, type RequestAsked } from '../domain/service-request.js';
import type { RequestsDeps } from '../deps.js';
import { announce } from './events.js';

/**
 * Records a service request (portal 2.4, 3): it starts nothing; an operator reviews it. An
 * identical request counts once more instead of making a duplicate.
 */
export async function recordRequest(
  deps: RequestsDeps,
  accountId: string,
  asked: RequestAsked,
  at = new Date(),
): Promise<Result<{ ok: true; count: number }, RequestsRefusal>> {
  const key = requestKey(asked);
  if (!key.ok) return key;
  return deps.db.transaction().execute(async (trx) => {
    const { id, count } = await upsertRequest(trx, { account_id: accountId, ...key.value }, at);
    await announce(trx, EVENTS.requestsRequestRecorded, {
      request_id: id,
      account_id: accountId,
      kind: key.value.kind,
      domain: key.value.domain || null,
      count,
      recorded_at: at.toISOString(),
    });
    return ok({ ok: true as const, count });
  });
}
