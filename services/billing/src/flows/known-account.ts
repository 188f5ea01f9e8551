import {
  RPC,
  accountEmailReplySchema,
  ok,
  refuse,
  type AccountEmailReply,
  type Result,
} from '@meridian/contracts';
import { isKnownAccount, recordAccount } from '../db/repositories/accounts.js';
import type { BillingRefusal } from '../domain/refusals.js';
import type { BillingDeps } from '../deps.js';

type Deps = Pick<BillingDeps, 'db' | 'bus'>;

/**
 * Whether billing may write to this account: it is in the projection of identity's
 * account.created events, or (an account whose event has not arrived yet) identity says it
 * exists, which is then recorded. Asked before the write's transaction, never inside it.
 */
export async function knownAccount(
  deps: Deps,
  accountId: string,
  now = new Date(),
): Promise<Result<true, Extract<BillingRefusal, 'unknown_account' | 'identity_unavailable'>>> {
  if (await isKnownAccount(deps.db, accountId)) return ok(true);
  const asked = await deps.bus.request<AccountEmailReply>(RPC.identityAccountEmail, {
    account_id: accountId,
  });
  if (!asked.ok && asked.problem.status === 404)
    return refuse('unknown_account', `No account ${accountId} exists; nothing was written.`);
  if (!asked.ok || !accountEmailReplySchema.safeParse(asked.data).success)
    return refuse(
      'identity_unavailable',
      `Identity did not say whether account ${accountId} exists; nothing was written. Try again shortly.`,
    );
  await recordAccount(deps.db, { account_id: accountId, created_at: null, recorded_at: now });
  return ok(true);
}
