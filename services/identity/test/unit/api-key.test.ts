import { describe, expect, it } from '@jest/globals';
import { API_KEY_LENGTH as KEY_LENGTH, API_KEY_PREFIX as KEY_PREFIX } from '@meridian/contracts';
import { keySecretMatches, newApiKey, parseApiKey } from '../../src/domain/api-key.js';

describe('API keys', () => {
  it('are long, prefixed, and parse back to their id and a secret matching the stored hash', () => {
    const key = newApiKey();
    expect(key.key).toHaveLength(KEY_LENGTH);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    expect(key.prefix).toBe(`${KEY_PREFIX}${key.id}`);
    const parts = parseApiKey(key.key)!;
    expect(parts.id).toBe(key.id);
    expect(keySecretMatches(parts.secret, key.salt, key.secretHash)).toBe(true);
    expect(key.secretHash).not.toContain(parts.secret);
  });

  it('tells a real key from noise by its checksum', () => {
    const { key } = newApiKey();
    const last = key.at(-10)!;
    const typo = key.slice(0, -10) + (last === 'a' ? 'b' : 'a') + key.slice(-9);
    expect(parseApiKey(typo)).toBeUndefined();
    expect(parseApiKey(key.slice(0, -1))).toBeUndefined();
    expect(parseApiKey(`sk_live_${key.slice(8)}`)).toBeUndefined();
    expect(parseApiKey('')).toBeUndefined();
  });

  it('salts each key, so two keys never share a hash and a wrong secret does not match', () => {
    const a = newApiKey();
    const b = newApiKey();
    expect(a.salt).not.toBe(b.salt);
    expect(keySecretMatches(parseApiKey(b.key)!.secret, a.salt, a.secretHash)).toBe(false);
  });
});
