import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses the scanner may connect to. Only public unicast addresses pass; loopback
 * passes too when a test sets SCANNER_ALLOW_LOOPBACK, and nothing else ever does.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'metadata'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'invalid';

const V4: [string, number, AddressClass][] = [
  ['0.0.0.0', 8, 'reserved'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'metadata'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6: [string, number, AddressClass][] = [
  ['::', 128, 'reserved'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'metadata'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['::', 96, 'reserved'],
];

const lists = new Map<AddressClass, BlockList>();
function listOf(kind: AddressClass): BlockList {
  let list = lists.get(kind);
  if (!list) {
    list = new BlockList();
    lists.set(kind, list);
  }
  return list;
}
for (const [net, prefix, kind] of V4) listOf(kind).addSubnet(net, prefix, 'ipv4');
for (const [net, prefix, kind] of V6) listOf(kind).addSubnet(net, prefix, 'ipv6');
/** Most specific first: metadata before link-local, loopback before reserved. */
const ORDER: AddressClass[] = [
  'metadata',
  'loopback',
  'private',
  'cgnat',
  'link-local',
  'unique-local',
  'multicast',
  'reserved',
];

function hexPairToV4(hi: string, lo: string): string {
  const a = parseInt(hi, 16);
  const b = parseInt(lo, 16);
  return `${a >> 8}.${a & 0xff}.${b >> 8}.${b & 0xff}`;
}

/** Expands an IPv6 address to its eight 4-digit groups. */
function expandV6(address: string): string[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text =
      text.slice(0, -dotted[1]!.length) +
      `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = text.includes('::') ? 8 - h.length - t.length : 0;
  const groups = [...h, ...Array<string>(Math.max(0, fill)).fill('0'), ...t];
  return groups.length === 8 ? groups.map((g) => g.padStart(4, '0')) : null;
}

/**
 * The IPv4 address an IPv6 one carries and that a stack may route to: IPv4-mapped
 * (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
export function embeddedIpv4(address: string): string | null {
  const g = expandV6(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === '0000');
  if (zeros(0, 5) && g[5] === 'ffff') return hexPairToV4(g[6]!, g[7]!);
  if (g[0] === '0064' && g[1] === 'ff9b' && zeros(2, 6)) return hexPairToV4(g[6]!, g[7]!);
  if (g[0] === '2002') return hexPairToV4(g[1]!, g[2]!);
  return null;
}

/** The class of one literal address (brackets allowed). */
export function classifyAddress(input: string): AddressClass {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(address)) {
    for (const kind of ORDER) if (lists.get(kind)?.check(address, 'ipv4')) return kind;
    return 'public';
  }
  if (isIPv6(address)) {
    const inner = embeddedIpv4(address);
    if (inner !== null) {
      const kind = classifyAddress(inner);
      // A mapped public address is still an unusual target; the mapped form itself is refused.
      return kind === 'public' ? 'reserved' : kind;
    }
    for (const kind of ORDER) if (lists.get(kind)?.check(address, 'ipv6')) return kind;
    return 'public';
  }
  return 'invalid';
}

export interface AddressPolicy {
  allowLoopback: boolean;
}

/** null when the scanner may connect to the address, else why not. */
export function refusalOf(address: string, policy: AddressPolicy): string | null {
  const kind = classifyAddress(address);
  if (kind === 'public') return null;
  if (kind === 'loopback' && policy.allowLoopback) return null;
  return `${address} is a ${kind} address`;
}
