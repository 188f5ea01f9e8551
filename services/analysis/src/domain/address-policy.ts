import ipaddr from 'ipaddr.js';

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

type V4 = ipaddr.IPv4;
type V6 = ipaddr.IPv6;

/**
 * The ranges of ipaddr.js (which follows the IANA special-purpose registries) in our classes.
 * Every special-purpose block is refused, the globally reachable anycast ones (AS112, AMT, PCP,
 * TURN) too: no website is served from them.
 */
const V4_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'cgnat',
  linkLocal: 'link-local',
  multicast: 'multicast',
};
const V6_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'unique-local',
  linkLocal: 'link-local',
  multicast: 'multicast',
};

const cidr = <T extends V4 | V6>(text: string) => ipaddr.parseCIDR(text) as [T, number];
/** Blocks the library leaves out or folds into a wider one that we name apart. */
const METADATA_V4 = [cidr<V4>('169.254.169.254/32')];
const METADATA_V6 = [cidr<V6>('fd00:ec2::254/128')];
const EXTRA_RESERVED_V6 = [
  // IPv4-compatible (deprecated, RFC 4291 2.5.5.1): judged by what it carries first.
  cidr<V6>('::/96'),
  // Dummy IPv6 prefix (RFC 9780).
  cidr<V6>('100:0:0:1::/64'),
];

const inAny = <T extends V4 | V6>(address: T, blocks: [T, number][]) =>
  blocks.some((block) => address.match(block));

const v4Of = (hi: number, lo: number): V4 => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 address an IPv6 one carries and that a translator or tunnel may route to:
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96, RFC 7915), IPv4-compatible
 * (::/96), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 6052 and 8215, the address
 * in the last 32 bits), 6to4 (2002::/16) and Teredo (2001::/32, the client's address inverted).
 */
function carriedV4(address: V6): V4 | null {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return v4Of(p[6]!, p[7]!);
    case '6to4':
      return v4Of(p[1]!, p[2]!);
    case 'teredo':
      return v4Of(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
    case 'unspecified':
    case 'loopback':
      return null;
    // Named one by one, so that a range a new ipaddr.js adds is judged here before it passes:
    // only the IPv4-compatible block (::/96), which the library has no name for, carries one.
    case 'unicast':
    case 'reserved':
    case 'multicast':
    case 'linkLocal':
    case 'uniqueLocal':
    case 'benchmarking':
    case 'amt':
    case 'as112v6':
    case 'orchid2':
    case 'droneRemoteIdProtocolEntityTags':
      return inAny(address, EXTRA_RESERVED_V6.slice(0, 1)) ? v4Of(p[6]!, p[7]!) : null;
  }
}

/**
 * Only the strict forms count as addresses, as node:net's isIPv4 and isIPv6 take them: ipaddr.js
 * alone also reads "127.1" or hex and octal parts, which are no DNS answers.
 */
const isStrictIpv4 = (address: string) => ipaddr.IPv4.isValidFourPartDecimal(address);

function isStrictIpv6(address: string): boolean {
  if (address.includes('%') || !ipaddr.IPv6.isValid(address)) return false;
  const last = address.slice(address.lastIndexOf(':') + 1);
  return !last.includes('.') || isStrictIpv4(last);
}

/** The IPv4 address an IPv6 literal carries (see carriedV4), as text; null when it carries none. */
export function embeddedIpv4(input: string): string | null {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isStrictIpv6(address)) return null;
  return carriedV4(ipaddr.IPv6.parse(address))?.toString() ?? null;
}

function classifyV4(address: V4): AddressClass {
  if (inAny(address, METADATA_V4)) return 'metadata';
  return V4_CLASS[address.range()] ?? 'reserved';
}

function classifyV6(address: V6): AddressClass {
  const inner = carriedV4(address);
  if (inner) {
    const kind = classifyV4(inner);
    // A form that carries a public address is still no address of a website: refused as reserved.
    return kind === 'public' ? 'reserved' : kind;
  }
  if (inAny(address, METADATA_V6)) return 'metadata';
  const range = address.range();
  if (range === 'unicast' && inAny(address, EXTRA_RESERVED_V6)) return 'reserved';
  return V6_CLASS[range] ?? 'reserved';
}

/** The class of one literal address (brackets and a zone allowed); only strict forms are addresses. */
export function classifyAddress(input: string): AddressClass {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isStrictIpv4(address)) return classifyV4(ipaddr.IPv4.parse(address));
  if (isStrictIpv6(address)) return classifyV6(ipaddr.IPv6.parse(address));
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
