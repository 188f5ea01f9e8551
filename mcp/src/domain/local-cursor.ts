import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Cursors of the pages this server cuts itself (the catalogue, an options chain, any answer that
 * is not a series): `mcp1.<base64url JSON>.<HMAC-SHA256, 16 bytes>`, bound to the tool and its
 * arguments, so a cursor of one question cannot be replayed on another nor forged. Series cursors
 * are the data service's own and pass through untouched.
 */
const PREFIX = 'mcp1.';

export interface CursorBody {
  /** Tool and arguments the page belongs to. */
  scope: string;
  offset: number;
}

const sign = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url');

export function isLocalCursor(cursor: string): boolean {
  return cursor.startsWith(PREFIX);
}

export function encodeCursor(secret: string, body: CursorBody): string {
  const payload = Buffer.from(JSON.stringify({ s: body.scope, o: body.offset })).toString('base64url');
  return `${PREFIX}${payload}.${sign(secret, payload)}`;
}

/** The offset of a cursor of `scope`, or undefined when it is altered, foreign or of another question. */
export function decodeCursor(secret: string, cursor: string, scope: string): number | undefined {
  if (!isLocalCursor(cursor)) return undefined;
  const [payload, mac] = cursor.slice(PREFIX.length).split('.');
  if (!payload || !mac) return undefined;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      s?: unknown;
      o?: unknown;
    };
    if (body.s !== scope || typeof body.o !== 'number' || !Number.isInteger(body.o) || body.o < 0)
      return undefined;
    return body.o;
  } catch {
    return undefined;
  }
}
