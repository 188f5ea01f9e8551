import { describe, expect, it } from '@jest/globals';
import { assertionKey, signClientAddress, verifyClientAddress } from '../src/index.js';

const key = assertionKey('k'.repeat(40));
const now = Date.parse('2026-11-27T12:00:00Z');

describe('the client address an edge vouches for', () => {
  it('names the address it was signed for, IPv4 and IPv6, within its minute', () => {
    for (const address of ['203.0.113.7', '2001:db8::1', '::ffff:127.0.0.1'])
      expect(verifyClientAddress(signClientAddress(address, key, now), key, now + 30_000)).toBe(address);
  });

  it('ignores a plain address, another key, an altered address, a lapsed or a far-future one', () => {
    const signed = signClientAddress('203.0.113.7', key, now);
    const [, expires, mac] = signed.split(' ');
    for (const value of [
      '203.0.113.7',
      signClientAddress('203.0.113.7', assertionKey('x'.repeat(40)), now),
      `203.0.113.8 ${expires} ${mac}`,
      `203.0.113.7 ${Number(expires) + 1} ${mac}`,
      `${signed} extra`,
      undefined,
      ['a', 'b'],
    ])
      expect(verifyClientAddress(value, key, now)).toBeUndefined();
    expect(verifyClientAddress(signed, key, now + 61_000)).toBeUndefined();
    expect(
      verifyClientAddress(signClientAddress('203.0.113.7', key, now + 600_000), key, now),
    ).toBeUndefined();
  });
});
