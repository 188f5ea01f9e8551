import { describe, expect, it } from '@jest/globals';
import { classifyAddress, embeddedIpv4, refusalOf } from '../../src/domain/address-policy.js';
import { inScope, inWindow } from '../../src/domain/scope.js';

const closed = { allowLoopback: false };
const tests = { allowLoopback: true };

describe('the scanner address policy', () => {
  it('lets public addresses through', () => {
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111'])
      expect(refusalOf(a, closed)).toBeNull();
  });

  it('refuses private, loopback, link-local, CGNAT, unique-local, multicast and reserved addresses', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['10.0.0.5', 'private'],
      ['172.16.3.4', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'cgnat'],
      ['169.254.10.10', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['0.0.0.0', 'reserved'],
      ['255.255.255.255', 'reserved'],
      ['::', 'reserved'],
      ['2001:db8::1', 'reserved'],
    ];
    for (const [address, kind] of cases) {
      expect([address, classifyAddress(address)]).toEqual([address, kind]);
      expect(refusalOf(address, closed)).toContain(kind);
    }
  });

  it('names cloud metadata addresses as such', () => {
    expect(classifyAddress('169.254.169.254')).toBe('metadata');
    expect(classifyAddress('fd00:ec2::254')).toBe('metadata');
  });

  it('sees through IPv4-mapped, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(classifyAddress('[::ffff:127.0.0.1]')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('::ffff:a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('64:ff9b::a00:5')).toBe('private');
    expect(classifyAddress('2002:c0a8:0101::1')).toBe('private');
    expect(refusalOf('::ffff:8.8.8.8', closed)).not.toBeNull();
  });

  it('with the test setting allows loopback and nothing else', () => {
    expect(refusalOf('127.0.0.1', tests)).toBeNull();
    expect(refusalOf('::1', tests)).toBeNull();
    for (const a of ['10.0.0.5', '169.254.169.254', 'fd00:ec2::254', '192.168.0.1', '100.64.1.1'])
      expect(refusalOf(a, tests)).not.toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(refusalOf('example.com', closed)).toContain('invalid');
  });

  it('reads only strict address forms: short, hex, octal or padded parts are no addresses', () => {
    for (const a of [
      '127.1',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '01.2.3.4',
      '::ffff:127.1',
      '::ffff:0x7f.0.0.1',
      '1::2::3',
    ])
      expect(classifyAddress(a)).toBe('invalid');
    expect(classifyAddress('[fe80::1%eth0]')).toBe('link-local');
    expect(classifyAddress('::ffff:10.0.0.1')).toBe('private');
    expect(embeddedIpv4('::ffff:127.1')).toBeNull();
  });
});

describe('the authorization scope and window', () => {
  const auth = {
    scope: ['example.com', '/app/', 'https://shop.example.com/cart/', '*.api.example.com'],
    starts_at: '2026-01-01T00:00:00Z',
    ends_at: '2026-01-02T00:00:00Z',
  };
  it('matches hosts, wildcard subdomains, URL prefixes and path prefixes', () => {
    expect(inScope('https://example.com/anything', 'example.com', auth)).toBe(true);
    expect(inScope('https://v1.api.example.com/x', 'example.com', auth)).toBe(true);
    expect(inScope('https://shop.example.com/cart/1', 'example.com', auth)).toBe(true);
    expect(inScope('https://shop.example.com/admin', 'example.com', auth)).toBe(false);
    expect(inScope('https://other.example.com/app/', 'example.com', auth)).toBe(false);
  });
  it('takes an empty scope as the audited domain only', () => {
    expect(inScope('https://example.com/x', 'example.com', { scope: [] })).toBe(true);
    expect(inScope('https://www.example.com/x', 'example.com', { scope: [] })).toBe(false);
  });
  it('is in force from starts_at until just before ends_at', () => {
    expect(inWindow(auth, new Date('2026-01-01T00:00:00Z'))).toBe(true);
    expect(inWindow(auth, new Date('2026-01-02T00:00:00Z'))).toBe(false);
    expect(inWindow(auth, new Date('2025-12-31T23:59:59Z'))).toBe(false);
  });
});
