import { describe, expect, it } from '@jest/globals';
import { crc32 } from 'node:zlib';
import { paymentRequiredSchema, USDC_MINT, catalogFor } from '@meridian/contracts';
import { corsHeaders, corsPolicy } from '../../src/domain/cors.js';
import { addressBucket, trustedProxies } from '../../src/domain/client-address.js';
import { crossSiteRefusal } from '../../src/domain/cross-site.js';
import { bearerChallenge, presentedKey } from '../../src/domain/credentials.js';
import { dataTarget, dataTargets, gateRefusal, isDataPath, isPriced } from '../../src/domain/data-route.js';
import { keyFormatValid } from '../../src/domain/key-format.js';
import { paymentRefusal, paymentRequired } from '../../src/domain/payment-required.js';
import { TtlLru } from '../../src/domain/ttl-lru.js';
import { accessOf } from '../../src/domain/route-table.js';

/** The catalogue of INGEST_MODE=replay, the default. */
const REPLAY = catalogFor('replay');

describe('presented credentials', () => {
  it('takes the key from X-API-Key or a bearer Authorization, and nothing else', () => {
    expect(presentedKey({ 'x-api-key': 'k1' })).toEqual({ kind: 'key', key: 'k1' });
    expect(presentedKey({ authorization: 'Bearer k2' })).toEqual({ kind: 'key', key: 'k2' });
    expect(presentedKey({ authorization: 'bearer  k3 ' })).toEqual({ kind: 'key', key: 'k3' });
    expect(presentedKey({ authorization: 'Basic abc' })).toEqual({ kind: 'malformed' });
    expect(presentedKey({})).toEqual({ kind: 'none' });
  });
});

describe('401 challenge', () => {
  it('names the bearer scheme, and invalid_token only when a credential was refused', () => {
    expect(bearerChallenge(false)).toBe('Bearer realm="meridian"');
    expect(bearerChallenge(true)).toBe('Bearer realm="meridian", error="invalid_token"');
  });
});

describe('client address buckets', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::198.51.100.1', '64:ff9b:0:0::/64'],
    ['not-an-address', 'not-an-address'],
  ])('%s counts under %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });

  it('puts every address of one /64 in one bucket', () => {
    expect(addressBucket('2001:db8:aa:bb::1')).toBe(addressBucket('2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(addressBucket('2001:db8:aa:bb::1')).not.toBe(addressBucket('2001:db8:aa:bc::1'));
  });
});

describe('key format', () => {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const b62 = (n: number) =>
    Array.from({ length: 6 }, (_, i) => BASE62[Math.floor(n / 62 ** (5 - i)) % 62]).join('');
  const body = `mk_live_${'A1b2C3d4E5f6'}${'x'.repeat(32)}`;
  const key = `${body}${b62(crc32(body))}`;

  it('accepts a key with a valid checksum and refuses noise and a flipped character', () => {
    expect(keyFormatValid(key)).toBe(true);
    expect(keyFormatValid(`${key.slice(0, 20)}${key[20] === 'y' ? 'z' : 'y'}${key.slice(21)}`)).toBe(false);
    expect(keyFormatValid('mk_live_short')).toBe(false);
    expect(keyFormatValid('random-garbage-of-some-length-0123456789')).toBe(false);
  });
});

describe('data routes and the plan gate', () => {
  it('reads the metric of a data path', () => {
    const target = dataTarget('/v1/data/crypto/options/chain', REPLAY);
    expect(target?.hit?.gate).toBe('pro');
    expect(isPriced(target)).toBe(true);
    expect(isDataPath('/v1/data/x')).toBe(true);
    expect(dataTarget('/v1/data/crypto/spot', REPLAY)).toBeUndefined();
  });

  it('does not price planned or unknown metrics', () => {
    expect(isPriced(dataTarget('/v1/data/crypto/spot/spread', REPLAY))).toBe(false);
    expect(isPriced(dataTarget('/v1/data/nope/nope/nope', REPLAY))).toBe(false);
  });

  it('refuses a plan below the higher of product and metric gate, naming both', () => {
    const trades = dataTarget('/v1/data/crypto/spot/trades', REPLAY);
    expect(gateRefusal('free', trades)).toContain('crypto/spot/trades needs the basic plan');
    expect(gateRefusal('basic', trades)).toBeUndefined();
    expect(gateRefusal('pro', dataTarget('/v1/data/crypto/futures/funding', REPLAY))).toContain('ultra');
    expect(gateRefusal('free', dataTarget('/v1/data/crypto/spot/spread', REPLAY))).toBeUndefined();
  });

  it('remembers the target of each path, the same as reading it afresh, in bounded memory', () => {
    const remembered = dataTargets(REPLAY, 2);
    const paths = [
      '/v1/data/crypto/options/chain',
      '/v1/data/crypto/spot',
      '/v1/data/crypto/spot/trades',
      '/v1/data/crypto/options/chain',
      '/v1/data/nope/nope/nope',
      '/v1/data/crypto/spot',
    ];
    for (const path of [...paths, ...paths]) expect(remembered(path)).toEqual(dataTarget(path, REPLAY));
  });
});

describe('x402 challenge', () => {
  const hit = dataTarget('/v1/data/crypto/spot/reference_price', REPLAY)!.hit!;
  const settings = { payTo: 'PayTo111', feePayer: 'Fee111' };

  it('states the price of a read and of a series read on Solana mainnet in USDC', () => {
    const read = paymentRequired(hit, 'http://h/v1/data/crypto/spot/reference_price', false, settings);
    expect(paymentRequiredSchema.parse(read)).toEqual(read);
    expect(read.accepts[0]).toEqual({
      scheme: 'exact',
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      amount: '10000',
      asset: USDC_MINT,
      payTo: 'PayTo111',
      maxTimeoutSeconds: 60,
      extra: { feePayer: 'Fee111' },
    });
    expect(paymentRequired(hit, 'u', true, settings).accepts[0]!.amount).toBe('20000');
    expect(read.extensions.bazaar!.info).toMatchObject({ input: { type: 'http', method: 'GET' } });
    expect(read.error).toContain('X-PAYMENT');
    const refused = paymentRequired(hit, 'u', false, settings, paymentRefusal('payment_replayed', 'Used.'));
    expect(refused.error).toMatch(/^payment_replayed: Used\. .*X-PAYMENT/);
  });
});

describe('portal access rules', () => {
  it.each([
    ['/auth/login', 'anonymous'],
    ['/auth/logout', 'anonymous'],
    ['/auth/oauth/idp/callback', 'anonymous'],
    ['/auth/oauth/corp-sso', 'anonymous'],
    ['/auth/oauth/corp-sso/callback', 'anonymous'],
    ['/auth/oauth/link/confirm', 'anonymous'],
    ['/v1/analysis/shared/abc', 'anonymous'],
    ['/v1/analysis/shared/abc/pdf', 'anonymous'],
    ['/v1/billing/prices', 'public'],
    ['/v1/catalog', 'public'],
    ['/v1/agent/whoami', 'session_or_key'],
    ['/v1/account', 'session'],
    ['/v1/account/links/abc', 'session'],
    ['/v1/analysis/report/abc', 'session'],
    ['/v1/billing/account', 'session'],
    ['/auth/anything-else', 'session'],
  ])('%s is %s', (path, access) => {
    expect(accessOf(path)).toBe(access);
  });
});

describe('CORS', () => {
  it('lets any origin read the payment and rate-limit headers, without credentials', () => {
    const h = corsHeaders(corsPolicy('*'), 'https://app.example', false)!;
    expect(h['access-control-allow-origin']).toBe('*');
    expect(h['access-control-expose-headers']).toContain('PAYMENT-REQUIRED');
    expect(h['access-control-expose-headers']).toContain('RateLimit-Remaining');
    expect(h['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  it('gives credentials only to a listed origin', () => {
    const policy = corsPolicy('https://portal.example');
    expect(corsHeaders(policy, 'https://evil.example', false)).toBeUndefined();
    expect(corsHeaders(policy, 'https://portal.example', true)).toMatchObject({
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': expect.stringContaining('X-API-Key'),
    });
  });
});

describe('TtlLru', () => {
  it('forgets the least recently used entry and expired ones', () => {
    const lru = new TtlLru<number>(2, 100, 0);
    lru.set('a', 1, 0);
    lru.set('b', 2, 0);
    expect(lru.get('a', 10)).toBe(1);
    lru.set('c', 3, 10);
    expect(lru.get('b', 10)).toBeUndefined();
    expect(lru.get('a', 99)).toBe(1);
    expect(lru.get('c', 110)).toBeUndefined();
  });

  it('moves a hit to the young end at most once per touch interval', () => {
    const lru = new TtlLru<number>(2, 10_000, 1_000);
    lru.set('a', 1, 0);
    lru.set('b', 2, 0);
    // Read again within the interval: 'a' keeps its place and is still the oldest.
    expect(lru.get('a', 500)).toBe(1);
    lru.set('c', 3, 500);
    expect(lru.get('a', 500)).toBeUndefined();
    // Read after the interval: 'b' moves to the young end, so 'c' is forgotten next.
    expect(lru.get('b', 1_000)).toBe(2);
    lru.set('d', 4, 1_000);
    expect(lru.get('c', 1_000)).toBeUndefined();
    expect(lru.get('b', 1_000)).toBe(2);
  });
});

describe('changes made with the session cookie', () => {
  const origins = { allowed: new Set(['https://portal.example']), own: 'https://api.example' };
  const refusal = (method: string, headers: Record<string, string>) =>
    crossSiteRefusal(method, { host: 'api.example', ...headers }, origins)?.kind;

  it('refuses another site, a sibling subdomain and an opaque origin', () => {
    expect(refusal('POST', { origin: 'https://evil.example' })).toBe('forbidden');
    expect(refusal('POST', { origin: 'https://sub.api.example' })).toBe('forbidden');
    expect(refusal('POST', { origin: 'null' })).toBe('forbidden');
    expect(refusal('DELETE', { 'sec-fetch-site': 'same-site' })).toBe('forbidden');
    expect(refusal('PUT', { 'sec-fetch-site': 'cross-site' })).toBe('forbidden');
  });

  it('serves our own origin, the allowed portal and clients that send neither header', () => {
    expect(refusal('POST', { origin: 'https://api.example' })).toBeUndefined();
    expect(refusal('POST', { origin: 'http://api.example' })).toBeUndefined();
    expect(
      refusal('POST', { origin: 'https://portal.example', 'sec-fetch-site': 'same-site' }),
    ).toBeUndefined();
    expect(refusal('POST', { 'sec-fetch-site': 'same-origin' })).toBeUndefined();
    expect(refusal('POST', {})).toBeUndefined();
  });

  it('takes JSON bodies only, and never refuses a read', () => {
    expect(
      refusal('POST', { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' }),
    ).toBe('unsupported_media_type');
    expect(refusal('POST', { 'content-type': 'text/plain', 'content-length': '2' })).toBe(
      'unsupported_media_type',
    );
    expect(refusal('POST', { 'content-length': '2' })).toBe('unsupported_media_type');
    expect(refusal('POST', { 'content-type': 'application/json; charset=utf-8' })).toBeUndefined();
    expect(refusal('POST', { 'content-type': 'application/merge-patch+json' })).toBeUndefined();
    expect(refusal('GET', { origin: 'https://evil.example', 'content-type': 'text/plain' })).toBeUndefined();
  });
});

describe('trusted proxies', () => {
  it('believes no one by default, else the listed peers', () => {
    expect(trustedProxies('none')).toEqual([]);
    expect(trustedProxies(' None ')).toEqual([]);
    expect(trustedProxies('loopback, 10.0.0.0/8')).toEqual(['loopback', '10.0.0.0/8']);
  });
});
