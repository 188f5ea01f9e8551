import { accountEmailRequestSchema, type AccountEmailReply, type RpcReply } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { findAccountById } from '../db/repositories/accounts.js';
import type { IdentityDeps } from '../deps.js';

/**
 * The confirmed email of an account, for a service that must match an account against named
 * people (a report shared with given emails). An unconfirmed address is never vouched for.
 */
export async function accountEmail(deps: IdentityDeps, input: unknown): Promise<RpcReply<AccountEmailReply>> {
  const parsed = accountEmailRequestSchema.safeParse(input);
  if (!parsed.success) return { ok: false, problem: problem('validation_failed', 'account_id: a uuid') };
  const account = await findAccountById(deps.db, parsed.data.account_id);
  if (!account) return { ok: false, problem: problem('not_found', 'No such account.') };
  return {
    ok: true,
    data: {
      account_id: account.id,
      email: account.email_confirmed_at ? account.email : null,
      nickname: account.nickname,
    },
  };
}
