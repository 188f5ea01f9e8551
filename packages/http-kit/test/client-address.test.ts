import { describe, expect, it } from '@jest/globals';
import { assertionKey, signClientAddress, verifyClientAddress } from '../src/index.js';

const key = assertionKey('k'.repeat(40));
const now = Date.parse('2026-11-27T12:00:00Z');
const on = { method: 'GET', target: '/v1/data/crypto/spot/reference_price?entity=BTC-USD' };
const claim = (address: string) => ({ address, ...on });

describe('the client address an edge vouches for', () => {
  it('names the address it was signed for, IPv4 and IPv6, on its request, within its minute', () => {
    for (const address of ['203.0.113.7', '2001:db8::1', '::ffff:127.0.0.1'])
      expect(
        verifyClientAddress(signClientAddress(claim(address), key, now), on, key, now + 30_000),
      ).toMatchObject({
        address,
      });
  });

  it('gives each assertion its own nonce, which the verifier answers with its expiry', () => {
    const [one, two] = [
      signClientAddress(claim('203.0.113.7'), key, now),
      signClientAddress(claim('203.0.113.7'), key, now),
    ];
    const a = verifyClientAddress(one, on, key, now)!;
    const b = verifyClientAddress(two, on, key, now)!;
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.expires).toBe(Math.floor(now / 1000) + 60);
  });

  it('ignores an assertion moved onto another request: another path, query or method', () => {
    const signed = signClientAddress(claim('203.0.113.7'), key, now);
    for (const request of [
      { method: 'GET', target: '/v1/data/crypto/spot/ohlcv?entity=BTC-USD' },
      { method: 'GET', target: '/v1/data/crypto/spot/reference_price?entity=ETH-USD' },
      { method: 'POST', target: on.target },
    ])
      expect(verifyClientAddress(signed, request, key, now)).toBeUndefined();
  });

  it('ignores a plain address, another key, an altered address, nonce or expiry, a lapsed or a far-future one', () => {
    const signed = signClientAddress(claim('203.0.113.7'), key, now);
    const [, expires, nonce, mac] = signed.split(' ');
    for (const value of [
      '203.0.113.7',
      signClientAddress(claim('203.0.113.7'), assertionKey('x'.repeat(40)), now),
      `203.0.113.8 ${expires} ${nonce} ${mac}`,
      `203.0.113.7 ${Number(expires) + 1} ${nonce} ${mac}`,
      `203.0.113.7 ${expires} ${'A'.repeat(22)} ${mac}`,
      `203.0.113.7 ${expires} ${mac}`,
      `${signed} extra`,
      undefined,
      ['a', 'b'],
    ])
      expect(verifyClientAddress(value, on, key, now)).toBeUndefined();
    expect(verifyClientAddress(signed, on, key, now + 61_000)).toBeUndefined();
    expect(
      verifyClientAddress(signClientAddress(claim('203.0.113.7'), key, now + 600_000), on, key, now),
    ).toBeUndefined();
  });
});
