import { describe, expect, it } from '@jest/globals';
import { checkPassword, preHashPassword } from '../../src/domain/password.js';

describe('password policy', () => {
  it('refuses fewer than 12 and more than 256 characters', async () => {
    expect((await checkPassword('Ab3$efgh-jk')).ok).toBe(false);
    expect((await checkPassword('x'.repeat(257))).ok).toBe(false);
  });

  it('counts characters, not bytes or UTF-16 units', async () => {
    const tooShort = { ok: false, code: 'validation_failed', detail: 'password: at least 12 characters' };
    // 22 bytes, 11 characters.
    expect(await checkPassword('ü'.repeat(11))).toEqual(tooShort);
    // 12 UTF-16 units, 6 characters.
    expect(await checkPassword('🦊🐙🦉🐢🦋🐝')).toEqual(tooShort);
    for (const strong of ['雪山飛狐天龍八部倚天屠龍', 'çñøüßéåæœ∂ƒ©']) {
      expect([...strong]).toHaveLength(12);
      expect(await checkPassword(strong)).toEqual({ ok: true, value: strong });
    }
  });

  it('refuses common passwords and patterns without any composition rule', async () => {
    for (const weak of ['password1234', 'qwertyuiopasdf', '123456789012', 'iloveyou1234'])
      expect(await checkPassword(weak)).toMatchObject({ ok: false, code: 'validation_failed' });
    expect((await checkPassword('correct horse battery staple')).ok).toBe(true);
    expect((await checkPassword('x'.repeat(4) + 'glacier-ostrich-velvet')).ok).toBe(true);
  });

  it('refuses a password made of the email', async () => {
    expect(
      (await checkPassword('quentin.marsh@example.com', ['quentin.marsh@example.com', 'quentin', 'marsh']))
        .ok,
    ).toBe(false);
  });

  it('pre-hashes so that bytes past 72 still count', () => {
    const long = 'a'.repeat(80);
    expect(preHashPassword(`${long}1`)).not.toBe(preHashPassword(`${long}2`));
    expect(Buffer.byteLength(preHashPassword('x'.repeat(256)))).toBeLessThanOrEqual(72);
  });
});
