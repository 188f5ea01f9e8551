import { signCursor, verifyCursor } from '@meridian/http-kit';

/**
 * Cursors of the pages this server cuts itself (the catalogue, an options chain, any answer that
 * is not a series): `mcp1.` and an http-kit cursor of `{s: scope, o: offset}`, bound to the tool
 * and its arguments, so a cursor of one question cannot be replayed on another nor forged. Series
 * cursors are the data service's own and pass through untouched; the prefix tells them apart.
 */
const PREFIX = 'mcp1.';

export interface CursorBody {
  /** Tool and arguments the page belongs to. */
  scope: string;
  offset: number;
}

export function isLocalCursor(cursor: string): boolean {
  return cursor.startsWith(PREFIX);
}

export function encodeCursor(secret: string, body: CursorBody): string {
  return `${PREFIX}${signCursor({ s: body.scope, o: body.offset }, secret)}`;
}

/** The offset of a cursor of `scope`, or undefined when it is altered, foreign or of another question. */
export function decodeCursor(secret: string, cursor: string, scope: string): number | undefined {
  if (!isLocalCursor(cursor)) return undefined;
  const body = verifyCursor(cursor.slice(PREFIX.length), secret);
  const offset = body?.o;
  if (body?.s !== scope || typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0)
    return undefined;
  return offset;
}
