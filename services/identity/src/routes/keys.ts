import { Router } from 'express';
import { z } from 'zod';
import { EVENTS } from '@meridian/contracts';
import { envelope, httpProblem, parseInput, sessionAccountOf } from '@meridian/http-kit';
import { countLiveKeys, findOwnedKey, insertApiKey, markKeyRevoked } from '../db/repositories/api-keys.js';
import { newApiKey } from '../domain/api-key.js';
import type { IdentityDeps } from '../deps.js';
import { announce } from '../flows/events.js';

/** Live keys an account may hold at once; revoke one to make another. */
export const MAX_LIVE_KEYS = 20;

export function keyRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.post('/v1/keys', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.status(201).json(envelope(await createKey(deps, accountId)));
  });
  router.post('/v1/keys/:id/revoke', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseInput(z.object({ id: z.string().min(1).max(64) }), req.params, 'path');
    res.json(envelope(await revokeKey(deps, accountId, id)));
  });
  return router;
}

async function createKey(deps: IdentityDeps, accountId: string) {
  const key = newApiKey();
  const createdAt = new Date();
  await deps.db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
    if ((await countLiveKeys(trx, accountId)) >= MAX_LIVE_KEYS)
      throw httpProblem('conflict', `An account holds at most ${MAX_LIVE_KEYS} live keys; revoke one first.`);
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
  });
  return {
    id: key.id,
    key: key.key,
    prefix: key.prefix,
    created_at: createdAt.toISOString(),
    shown_once: true,
  };
}

/** Revoking a revoked key answers the first revocation again; another account's key is 404. */
async function revokeKey(deps: IdentityDeps, accountId: string, id: string) {
  return deps.db.transaction().execute(async (trx) => {
    const key = await findOwnedKey(trx, accountId, id);
    if (!key) throw httpProblem('not_found', 'No such key.');
    if (key.revoked_at) return { id, prefix: key.prefix, revoked_at: key.revoked_at.toISOString() };
    const at = new Date();
    await markKeyRevoked(trx, id, at);
    await announce(trx, EVENTS.identityKeyRevoked, {
      key_id: id,
      account_id: accountId,
      revoked_at: at.toISOString(),
    });
    return { id, prefix: key.prefix, revoked_at: at.toISOString() };
  });
}
