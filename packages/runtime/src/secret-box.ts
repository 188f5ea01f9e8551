import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const TAG_BYTES = 16;

/**
 * AES-256-GCM for secrets at rest (TOTP secrets, audit credentials): `v1.<iv>.<tag>.<ciphertext>`
 * in base64url, a fresh 96-bit IV each time. `context` (the owning row's ids) is bound as
 * associated data, so a ciphertext copied to another row fails to open.
 */
export function seal(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function open(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
  // Without authTagLength a GCM decipher takes any tag of 4 to 16 bytes, and a 4-byte tag can be
  // forged in about 2^32 tries; seal always writes 16.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** A 32-byte key written as 64 hex characters or base64 / base64url; `setting` names it in the error. */
export function parseKey(text: string, setting: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (bytes.length !== 32) throw new Error(`${setting} must be 32 bytes (64 hex or base64)`);
  return bytes;
}
