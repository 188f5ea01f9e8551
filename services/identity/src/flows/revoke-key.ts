import { EVENTS, ok, refuse, type Result } from '@meridian/contracts';
import { findOwnedKey, markKeyRevoked } from '../db/repositories/api-keys.js';
import type { IdentityDeps } from '../deps.js';
import { announce } from './events.js';

export interface RevokedKey {
  id: string;
  prefix: string;
  revoked_at: string;
}

/** Revoking a revoked key answers the first revocation again; another account's key is not found. */
export async function revokeKey(
  deps: IdentityDeps,
  accountId: string,
  id: string,
): Promise<Result<RevokedKey, 'not_found'>> {
  return deps.db.transaction().execute(async (trx): Promise<Result<RevokedKey, 'not_found'>> => {
    const key = await findOwnedKey(trx, accountId, id);
    if (!key) return refuse('not_found', 'No such key.');
    if (key.revoked_at) return ok({ id, prefix: key.prefix, revoked_at: key.revoked_at.toISOString() });
    const at = new Date();
    await markKeyRevoked(trx, id, at);
    await announce(trx, EVENTS.identityKeyRevoked, {
      key_id: id,
      account_id: accountId,
      revoked_at: at.toISOString(),
    });
    return ok({ id, prefix: key.prefix, revoked_at: at.toISOString() });
  });
}
