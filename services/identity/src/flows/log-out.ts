import { ok, refuse, type Result } from '@meridian/contracts';
import { findSessionByTokenHash } from '../db/repositories/sessions.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { endSession } from './sessions.js';

/** Ends the session the gateway vouched for, else the one whose token the request carries. */
export async function logOut(
  deps: IdentityDeps,
  input: { vouched?: { account_id: string; id: string }; token?: string },
): Promise<Result<void, 'unauthorized'>> {
  let target = input.vouched;
  if (!target && input.token) {
    const row = await findSessionByTokenHash(deps.db, hashToken(input.token));
    if (row) target = { account_id: row.account_id, id: row.id };
  }
  const ended =
    target && (await deps.db.transaction().execute((trx) => endSession(trx, target.account_id, target.id)));
  return ended ? ok(undefined) : refuse('unauthorized', 'A valid session is required.');
}
