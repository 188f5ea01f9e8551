import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { findOperatorCandidate } from '../db/repositories/operators.js';

export interface Operator {
  account_id: string;
  email: string;
  nickname: string | null;
}

/**
 * The operator an email names: an account holding the operator role. An operator's command names
 * its operator so (identity's own, and billing's and requests' through rpc.identity.operator.resolve.v1),
 * which makes the actor of a logged action someone checked, not free text.
 */
export async function resolveOperator(
  db: Kysely<Database>,
  email: string,
): Promise<Result<Operator, 'not_found' | 'operator_required'>> {
  const account = await findOperatorCandidate(db, email.trim().toLowerCase());
  if (!account?.email) return refuse('not_found', `no account has the email ${email}`);
  if (!account.granted_at)
    return refuse('operator_required', `${account.email} does not hold the operator role`);
  return ok({ account_id: account.id, email: account.email, nickname: account.nickname });
}
