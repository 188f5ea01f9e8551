import { EVENTS, ok, type Result } from '@meridian/contracts';
import type { RequestsRefusal } from '../domain/refusals.js';
import {
  countOpenRequests,
  isOpen,
  lockAccountRequests,
  upsertRequest,
} from '../db/repositories/service-requests.js';
import { mayOpenRequest, requestKey, type RequestAsked } from '../domain/service-request.js';
import type { RequestsDeps } from '../deps.js';
import { announce } from './events.js';

/**
 * Records a service request (portal 2.4, 3): it starts nothing; an operator reviews it. An
 * identical request counts once more instead of making a duplicate. A new one naming a domain is
 * decided under a lock on the account, within its cap of open requests.
 */
export async function recordRequest(
  deps: RequestsDeps,
  accountId: string,
  asked: RequestAsked,
  at = new Date(),
): Promise<Result<{ ok: true; count: number }, RequestsRefusal>> {
  const key = requestKey(asked);
  if (!key.ok) return key;
  const rules = deps.config.openRequestRules;
  const row = { account_id: accountId, ...key.value };
  return deps.db.transaction().execute(async (trx) => {
    if (row.domain !== '') {
      await lockAccountRequests(trx, accountId);
      const open = await countOpenRequests(trx, accountId, new Date(at.getTime() - rules.liveMs));
      const allowed = mayOpenRequest(
        rules,
        { domain: row.domain, alreadyOpen: await isOpen(trx, row) },
        open,
      );
      if (!allowed.ok) return allowed;
    }
    const { id, count } = await upsertRequest(trx, row, at);
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
