import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque series cursors: base64url(JSON state) + '.' + base64url(HMAC-SHA256 truncated to 16 bytes).
 * A client can read nothing useful from one and cannot forge or alter one; a cursor also binds the
 * query it came from, so it cannot be replayed on another metric, entity, source or interval.
 */
export function signCursor(state: Record<string, unknown>, key: string): string {
  const body = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${body}.${mac(body, key)}`;
}

export function verifyCursor(cursor: string, key: string): Record<string, unknown> | undefined {
  const [body, sig, extra] = cursor.split('.');
  if (!body || !sig || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(body, key));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const state: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return state && typeof state === 'object' && !Array.isArray(state)
      ? (state as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function mac(body: string, key: string): string {
  return createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url');
}

export interface CursorCodec {
  sign(state: Record<string, unknown>): string;
  verify(cursor: string): Record<string, unknown> | undefined;
}

/**
 * Cursors keyed for one purpose by a key derived from a service's secret, so that lists keyed
 * from the same secret cannot read each other's cursors.
 */
export function cursorCodec(secret: string, purpose: string): CursorCodec {
  const key = createHmac('sha256', secret).update(`meridian cursor: ${purpose}`).digest('hex');
  return { sign: (state) => signCursor(state, key), verify: (cursor) => verifyCursor(cursor, key) };
}
