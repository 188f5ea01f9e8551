import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { findAccountByEmail } from '../db/repositories/accounts.js';
import { grantOperatorRole, insertOperatorAction, revokeOperatorRole } from '../db/repositories/operators.js';

export interface RoleChange {
  account_id: string;
  changed: boolean;
  /** The role works only with TOTP active: the command says so when it is not. */
  totp_active: boolean;
}

/**
 * Grants or takes the operator role of the account of `email`, and logs it in the append-only
 * operator log in the same transaction; `actor` names who ran the command.
 */
export async function changeOperatorRole(
  db: Kysely<Database>,
  input: { email: string; grant: boolean; actor: string; reason: string },
  now = new Date(),
): Promise<Result<RoleChange, 'not_found'>> {
  return db.transaction().execute(async (trx): Promise<Result<RoleChange, 'not_found'>> => {
    const account = await findAccountByEmail(trx, input.email.trim().toLowerCase());
    if (!account) return refuse('not_found', `no account has the email ${input.email}`);
    const changed = input.grant
      ? await grantOperatorRole(trx, account.id, input.actor, now)
      : await revokeOperatorRole(trx, account.id);
    if (changed)
      await insertOperatorAction(trx, {
        at: now,
        actor: input.actor,
        action: input.grant ? 'operator.grant' : 'operator.revoke',
        target: `account:${account.id}`,
        reason: input.reason,
      });
    return ok({ account_id: account.id, changed, totp_active: account.totp_state === 'active' });
  });
}
