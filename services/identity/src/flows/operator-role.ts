import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { findAccountByEmail } from '../db/repositories/accounts.js';
import {
  countOperators,
  grantOperatorRole,
  insertOperatorAction,
  lockOperatorRoles,
  revokeOperatorRole,
} from '../db/repositories/operators.js';
import { resolveOperator, type Operator } from './resolve-operator.js';

export interface RoleChange {
  account_id: string;
  changed: boolean;
  /** The role works only with TOTP active: the command says so when it is not. */
  totp_active: boolean;
}

/** Who changes a role: an operator named by email (checked), or the bootstrap of the first one. */
export type RoleChanger = { operator_email: string } | { bootstrap: true };

type Refused = 'not_found' | 'operator_required' | 'conflict';

/**
 * Grants or takes the operator role of the account of `email`, and logs it in the operator log in
 * the same transaction, under the operator who did it, checked to hold the role there and then.
 * The first operator is granted with the bootstrap only while no account holds the role (the roles
 * are locked, so two bootstraps cannot both find none).
 */
export async function changeOperatorRole(
  db: Kysely<Database>,
  input: { email: string; grant: boolean; by: RoleChanger; reason: string },
  now = new Date(),
): Promise<Result<RoleChange, Refused>> {
  return db.transaction().execute(async (trx): Promise<Result<RoleChange, Refused>> => {
    await lockOperatorRoles(trx);
    const by = await changerOf(trx, input.by, input.grant);
    if (!by.ok) return by;
    const account = await findAccountByEmail(trx, input.email.trim().toLowerCase());
    if (!account) return refuse('not_found', `no account has the email ${input.email}`);
    const actor = by.value ? `operator:${by.value.account_id}` : 'command:bootstrap';
    const changed = input.grant
      ? await grantOperatorRole(trx, account.id, actor, now)
      : await revokeOperatorRole(trx, account.id);
    if (changed)
      await insertOperatorAction(trx, {
        at: now,
        actor,
        action: input.grant ? 'operator.grant' : 'operator.revoke',
        target: `account:${account.id}`,
        reason: input.reason,
        operator: by.value ? { account_id: by.value.account_id, email: by.value.email } : undefined,
      });
    return ok({ account_id: account.id, changed, totp_active: account.totp_state === 'active' });
  });
}

/** The operator behind a change, or null for the bootstrap (allowed only to grant the first one). */
async function changerOf(
  trx: Kysely<Database>,
  by: RoleChanger,
  grant: boolean,
): Promise<Result<Operator | null, Refused>> {
  if ('operator_email' in by) return resolveOperator(trx, by.operator_email);
  if (!grant) return refuse('conflict', '--bootstrap only grants the first operator; name --operator');
  if ((await countOperators(trx)) > 0)
    return refuse('conflict', 'an operator exists already: name one with --operator <email>');
  return ok(null);
}
