import { describe, expect, it } from '@jest/globals';
import { verifyCursor } from '@meridian/http-kit';
import { decodeCursor, encodeCursor, isLocalCursor } from '../../src/tools/local-cursor.js';
import { scopeOf } from '../../src/domain/scope.js';

const SECRET = 's'.repeat(32);
const scope = scopeOf('browse_catalog', { category: 'crypto' });

describe('cursors of the pages this server cuts', () => {
  it('give back the offset they were written for', () => {
    const cursor = encodeCursor(SECRET, { scope, offset: 37 });
    expect(cursor).toMatch(/^mcp1\.[\w-]+\.[\w-]+$/);
    expect(isLocalCursor(cursor)).toBe(true);
    expect(decodeCursor(SECRET, cursor, scope)).toBe(37);
  });

  it('refuse a cursor of another question, another tool or another key', () => {
    const cursor = encodeCursor(SECRET, { scope, offset: 5 });
    expect(decodeCursor(SECRET, cursor, scopeOf('browse_catalog', { category: 'fx' }))).toBeUndefined();
    expect(decodeCursor(SECRET, cursor, scopeOf('option_chain', { category: 'crypto' }))).toBeUndefined();
    expect(decodeCursor('t'.repeat(32), cursor, scope)).toBeUndefined();
  });

  it('refuse an altered payload or signature', () => {
    const cursor = encodeCursor(SECRET, { scope, offset: 5 });
    const [, payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ s: scope, o: 500 })).toString('base64url');
    expect(decodeCursor(SECRET, `mcp1.${forged}.${mac}`, scope)).toBeUndefined();
    const flipped = `${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`;
    expect(decodeCursor(SECRET, `mcp1.${payload}.${flipped}`, scope)).toBeUndefined();
    expect(decodeCursor(SECRET, `mcp1.${payload}.`, scope)).toBeUndefined();
    expect(decodeCursor(SECRET, `mcp1.${payload}`, scope)).toBeUndefined();
    expect(decodeCursor(SECRET, `mcp1.${payload}.${mac}x`, scope)).toBeUndefined();
    expect(decodeCursor(SECRET, `mcp1.${payload}.${mac}.${mac}`, scope)).toBeUndefined();
  });

  it('refuse a signed body whose offset is not a whole number from 0', () => {
    for (const offset of [-1, 1.5])
      expect(decodeCursor(SECRET, encodeCursor(SECRET, { scope, offset }), scope)).toBeUndefined();
  });

  it('are the one HMAC cursor of http-kit behind their prefix', () => {
    const cursor = encodeCursor(SECRET, { scope, offset: 12 });
    expect(verifyCursor(cursor.slice('mcp1.'.length), SECRET)).toEqual({ s: scope, o: 12 });
    expect(verifyCursor(cursor.slice('mcp1.'.length), 't'.repeat(32))).toBeUndefined();
  });

  it('are told apart from the data service cursors, which pass through', () => {
    expect(isLocalCursor('eyJ0cyI6IjIwMjYifQ.abc')).toBe(false);
    expect(decodeCursor(SECRET, 'eyJ0cyI6IjIwMjYifQ.abc', scope)).toBeUndefined();
  });
});

describe('the question a cursor is bound to', () => {
  it('is the tool and its arguments, in any order, without cursor and budget', () => {
    expect(scopeOf('get_metric', { a: 1, b: 'x', cursor: 'c', max_response_tokens: 300 })).toBe(
      scopeOf('get_metric', { b: 'x', a: 1, max_response_tokens: 9000 }),
    );
    expect(scopeOf('get_metric', { a: 1 })).not.toBe(scopeOf('get_metric', { a: 2 }));
    expect(scopeOf('get_metric', { a: 1 })).not.toBe(scopeOf('ohlcv', { a: 1 }));
  });
});
