import type { Transaction } from 'kysely';
import { EVENTS, ok, refuse, type Result } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { lockAccountById } from '../db/repositories/accounts.js';
import { countLiveKeys, insertApiKey, latestRevocations } from '../db/repositories/api-keys.js';
import { newApiKey } from '../domain/api-key.js';
import type { IdentityDeps } from '../deps.js';
import { announce } from './events.js';
import { mustWait, type Wait } from './outcome.js';
import { keyChurnWait } from '../domain/throttle.js';

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
      const account = await lockAccountById(trx, accountId);
      if (!account) return refuse('unauthorized', 'A valid session is required.');
      // Limits are per key: the keys an account may hold bound what its plan can draw.
      const cap = deps.config.KEY_CAPS[account.plan];
      if ((await countLiveKeys(trx, accountId)) >= cap)
        return refuse(
          'too_many_keys',
          `The ${account.plan} plan holds at most ${cap} live keys at once; revoke one (POST /v1/keys/{id}/revoke) or move to a larger plan.`,
        );
      const wait = await churnWait(trx, deps, accountId, createdAt);
      if (wait > 0)
        return mustWait(
          `An account that revoked ${deps.config.KEY_CREATION_LIMIT} keys within the window makes no new one until the oldest of those revocations leaves it.`,
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

/** Revoking does not give a creation back: keys made and dropped in a loop are the churn bounded. */
async function churnWait(trx: Transaction<Database>, deps: IdentityDeps, accountId: string, now: Date) {
  const policy = { limit: deps.config.KEY_CREATION_LIMIT, windowSeconds: deps.config.KEY_CREATION_WINDOW };
  const since = new Date(now.getTime() - policy.windowSeconds * 1000);
  return keyChurnWait(await latestRevocations(trx, accountId, since, policy.limit), policy, now);
}
