import type { NextFunction, Request, Response } from 'express';
import type { Caller, Plan } from '@meridian/contracts';
import type { RateLimiter } from '../adapters/rate-limiter.js';
import { retiredKeysBucket, type BucketPolicy } from '../domain/token-bucket.js';

const REVOKE = /^\/v1\/keys\/([^/]+)\/revoke\/?$/;

function keyIdOf(path: string): string | undefined {
  const id = REVOKE.exec(path)?.[1];
  try {
    return id === undefined ? undefined : decodeURIComponent(id);
  } catch {
    return undefined;
  }
}

/**
 * Express step after portalAuth: before a key's revocation reaches identity, the key's spent
 * budget joins its account's retired-keys bucket, where the next new key of the account starts.
 * Done before, not after identity answers, so no new key can be used in between. A revocation
 * identity then refuses (a key of another account) costs only the caller's own account.
 */
export function retireRevokedKeys(limiter: RateLimiter, plans: Record<Plan, BucketPolicy>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const caller = res.locals.caller as Caller | undefined;
    const keyId = req.method === 'POST' ? keyIdOf(req.path) : undefined;
    if (keyId !== undefined && caller?.account_id && caller.plan)
      await limiter.retire(keyId, retiredKeysBucket(caller.account_id), plans[caller.plan]);
    next();
  };
}
