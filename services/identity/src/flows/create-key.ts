import { EVENTS, ok, refuse, type Result } from '@meridian/contracts';
import { lockAccountById } from '../db/repositories/accounts.js';
import { countLiveKeys, insertApiKey } from '../db/repositories/api-keys.js';
import { newApiKey } from '../domain/api-key.js';
import type { IdentityDeps } from '../deps.js';
import { announce } from './events.js';
import { mustWait, type Wait } from './outcome.js';
import { spendQuota } from './throttle.js';

/** Live keys an account may hold at once; revoke one to make another. */
export const MAX_LIVE_KEYS = 20;

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  created_at: string;
  shown_once: true;
}

/** A new key, announced; the secret is in this answer only. Creations of one account take turns. */
export async function createKey(
  deps: IdentityDeps,
  accountId: string,
): Promise<Result<CreatedKey, 'unauthorized' | 'too_many_keys'> | Wait> {
  const key = newApiKey();
  const createdAt = new Date();
  return deps.db
    .transaction()
    .execute(async (trx): Promise<Result<CreatedKey, 'unauthorized' | 'too_many_keys'> | Wait> => {
      if (!(await lockAccountById(trx, accountId)))
        return refuse('unauthorized', 'A valid session is required.');
      if ((await countLiveKeys(trx, accountId)) >= MAX_LIVE_KEYS)
        return refuse(
          'too_many_keys',
          `An account holds at most ${MAX_LIVE_KEYS} live keys; revoke one first.`,
        );
      // Revoking does not give a creation back: keys made and dropped in a loop are the churn this stops.
      const wait = await spendQuota(trx, `keys:account:${accountId}`, {
        limit: deps.config.KEY_CREATION_LIMIT,
        windowSeconds: deps.config.KEY_CREATION_WINDOW,
      });
      if (wait > 0)
        return mustWait(
          `An account creates at most ${deps.config.KEY_CREATION_LIMIT} keys per window.`,
          wait,
        );
      await insertApiKey(trx, {
        id: key.id,
        account_id: accountId,
        prefix: key.prefix,
        salt: key.salt,
        secret_hash: key.secretHash,
        created_at: createdAt,
      });
      await announce(trx, EVENTS.identityKeyCreated, {
        key_id: key.id,
        account_id: accountId,
        prefix: key.prefix,
        created_at: createdAt.toISOString(),
      });
      return ok({
        id: key.id,
        key: key.key,
        prefix: key.prefix,
        created_at: createdAt.toISOString(),
        shown_once: true,
      });
    });
}
