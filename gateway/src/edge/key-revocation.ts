import type { NextFunction, Request, Response } from 'express';
import type { Caller, Plan } from '@meridian/contracts';
import type { RateLimiter } from '../adapters/rate-limiter.js';
import { retiredKeysBucket, type BucketPolicy } from '../domain/token-bucket.js';

/** Case-insensitive, with or without a trailing slash: as identity's express router matches it. */
const REVOKE = /^\/v1\/keys\/([^/]+)\/revoke\/?$/i;

/**
 * The key id as identity's events and key verifications spell it (a lower-case uuid), whatever
 * spelling of the uuid the path used (upper case, no hyphens, braces: Postgres reads them all),
 * so the bucket retired is the one the key's calls spent.
 */
export function revokedKeyId(path: string): string | undefined {
  const raw = REVOKE.exec(path)?.[1];
  if (raw === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const hex = id.replace(/[{}-]/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return id;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
    const keyId = req.method === 'POST' ? revokedKeyId(req.path) : undefined;
    if (keyId !== undefined && caller?.account_id && caller.plan)
      await limiter.retire(keyId, retiredKeysBucket(caller.account_id), plans[caller.plan]);
    next();
  };
}
