import { createHmac, randomBytes } from 'node:crypto';
import { API_KEY_ID_LENGTH, API_KEY_PREFIX, API_KEY_SECRET_LENGTH, formatApiKey } from '@meridian/contracts';
import { randomBase62, sameSecret } from './secrets.js';

export { parseApiKey } from '@meridian/contracts';

export interface NewApiKey {
  id: string;
  /** The whole key, shown once. */
  key: string;
  /** The visible part, safe to list: `mk_live_<id>`. */
  prefix: string;
  salt: string;
  secretHash: string;
}

/**
 * The stored form: HMAC-SHA256 of the secret under a per-key random salt. The secret is 190
 * random bits, so a fast keyed hash is enough (no bcrypt): brute force is out of reach, and
 * verifying stays cheap on the gateway's hot path.
 */
export function hashKeySecret(secret: string, salt: string): string {
  return createHmac('sha256', Buffer.from(salt, 'hex')).update(secret, 'utf8').digest('hex');
}

/** A new key in the format of the contracts (packages/contracts/src/api-key.ts). */
export function newApiKey(): NewApiKey {
  const id = randomBase62(API_KEY_ID_LENGTH);
  const secret = randomBase62(API_KEY_SECRET_LENGTH);
  const salt = randomBytes(16).toString('hex');
  return {
    id,
    key: formatApiKey(id, secret),
    prefix: `${API_KEY_PREFIX}${id}`,
    salt,
    secretHash: hashKeySecret(secret, salt),
  };
}

export function keySecretMatches(secret: string, salt: string, storedHash: string): boolean {
  return sameSecret(Buffer.from(hashKeySecret(secret, salt), 'hex'), Buffer.from(storedHash, 'hex'));
}
