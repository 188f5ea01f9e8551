import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { open, seal } from '../src/secret-box.js';

/** The sealed value with its tag cut to its first `bytes` bytes. */
function withShortTag(sealed: string, bytes: number): string {
  const [version, iv, tag, body] = sealed.split('.');
  return [version, iv, Buffer.from(tag!, 'base64url').subarray(0, bytes).toString('base64url'), body].join(
    '.',
  );
}

describe('secret box', () => {
  it('opens what it sealed, under the same key and context only', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'a secret', 'row:1');
    expect(open(key, sealed, 'row:1')).toBe('a secret');
    expect(() => open(key, sealed, 'row:2')).toThrow();
    expect(() => open(randomBytes(32), sealed, 'row:1')).toThrow();
  });

  it('refuses a tag shorter than 16 bytes, even a true prefix of the right one', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'a secret', 'row:1');
    for (const bytes of [4, 8, 12, 15])
      expect(() => open(key, withShortTag(sealed, bytes), 'row:1')).toThrow();
  });
});
