import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A 256-bit random token for links, sessions, challenges and sign-in flows, base64url. Such a
 * token carries enough entropy that a plain SHA-256 of it is a safe stored form: nobody can
 * guess its way back, so no salt or slow hash is needed (unlike a password).
 */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function sameSecret(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
