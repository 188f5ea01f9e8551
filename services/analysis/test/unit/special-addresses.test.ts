import { describe, expect, it } from '@jest/globals';
import { classifyAddress, embeddedIpv4, refusalOf } from '../../src/domain/address-policy.js';

const closed = { allowLoopback: false };
const tests = { allowLoopback: true };

/** IANA IPv4 Special-Purpose Address Registry, every entry, plus multicast (224/4). */
const V4_BLOCKS = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.9/32',
  '192.0.0.10/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '224.0.0.0/4',
];

/** IANA IPv6 Special-Purpose Address Registry, every entry, plus site-local, multicast and IPv4-translated. */
const V6_BLOCKS = [
  '::1/128',
  '::/128',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001::/32',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:2::/48',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:30::/28',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '::ffff:0:0:0/96',
];

const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
const v4Number = (text: string) => text.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
function v6Number(text: string): bigint {
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}
const v6Text = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');

/** The first address of a block, one in its middle and its last, worked out here, not by the library. */
function samples(block: string, bits: 32n | 128n): string[] {
  const [net, len] = block.split('/') as [string, string];
  const base = bits === 32n ? v4Number(net) : v6Number(net);
  const size = 1n << (bits - BigInt(len));
  const text = bits === 32n ? v4Text : v6Text;
  return [...new Set([base, base + size / 2n + 1n - (size === 1n ? 1n : 0n), base + size - 1n])].map(text);
}

describe('the scanner refuses every special-purpose address', () => {
  it('refuses the first, a middle and the last address of every IPv4 special-purpose block', () => {
    const passed = V4_BLOCKS.flatMap((b) => samples(b, 32n)).filter((a) => refusalOf(a, closed) === null);
    expect(passed).toEqual([]);
  });

  it('refuses the first, a middle and the last address of every IPv6 special-purpose block', () => {
    const passed = V6_BLOCKS.flatMap((b) => samples(b, 128n)).filter((a) => refusalOf(a, closed) === null);
    expect(passed).toEqual([]);
  });

  it('lets through the public neighbours of the blocks', () => {
    for (const a of [
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.1',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.254',
      '2001:200::1',
      '2003::1',
      '2620:4f:7fff::1',
      '2a00:1450:4001:80e::200e',
    ])
      expect([a, refusalOf(a, closed)]).toEqual([a, null]);
  });
});

describe('addresses that carry an IPv4 address are judged by it', () => {
  it.each([
    ['::ffff:0:a00:5', '10.0.0.5', 'private'],
    ['::ffff:0:7f00:1', '127.0.0.1', 'loopback'],
    ['64:ff9b:1::a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'metadata'],
    ['64:ff9b::6440:1', '100.64.0.1', 'cgnat'],
    ['::ffff:c0a8:101', '192.168.1.1', 'private'],
    ['::a00:5', '10.0.0.5', 'private'],
    ['2002:a9fe:a9fe::1', '169.254.169.254', 'metadata'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1', 'private'],
  ])('%s carries %s and is refused as %s', (address, inner, kind) => {
    expect(embeddedIpv4(address)).toBe(inner);
    expect(classifyAddress(address)).toBe(kind);
    expect(refusalOf(address, closed)).toContain(kind);
  });

  it('refuses a carried public address as reserved, and lets loopback carried in a translated form through only in tests', () => {
    for (const a of ['::ffff:0:808:808', '64:ff9b:1::808:808', '64:ff9b::808:808', '::ffff:8.8.8.8'])
      expect([a, classifyAddress(a)]).toEqual([a, 'reserved']);
    expect(refusalOf('::ffff:0:7f00:1', tests)).toBeNull();
    expect(refusalOf('::ffff:0:7f00:1', closed)).toContain('loopback');
  });

  it('reads only the strict address forms a DNS answer has', () => {
    for (const a of ['127.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433'])
      expect(classifyAddress(a)).toBe('invalid');
  });
});
