const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The part of a client address that budgets are kept under: an IPv4 address as it is, an IPv6
 * address by its /64, since one subscriber is handed a whole /64 and could otherwise spread a
 * flood over 2^64 addresses. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressBucket(address: string): string {
  const mapped = MAPPED_V4.exec(address)?.[1];
  if (mapped) return mapped;
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address.split('%')[0]!);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

/** The eight groups of an IPv6 address, as lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const parts = (half: string | undefined) => (half ? half.split(':') : []);
  // An embedded IPv4 tail (64:ff9b::1.2.3.4) takes the room of two groups.
  const width = (list: string[]) => list.length + (list.at(-1)?.includes('.') ? 1 : 0);
  const head = parts(halves[0]);
  const tail = parts(halves[1]);
  const missing = 8 - width(head) - width(tail);
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return all.map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
}

/**
 * The peers whose X-Forwarded-For is believed, from TRUST_PROXY: `none` (the default) believes
 * no one, so a client cannot pick the address its budgets are kept under; otherwise the
 * comma-separated addresses, ranges or proxy-addr names (`loopback`, `uniquelocal`) of the proxies
 * in front of the gateway.
 */
export function trustedProxies(setting: string): string[] {
  const list = setting
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return list.length === 1 && list[0]!.toLowerCase() === 'none' ? [] : list;
}

/**
 * The nonces of the client-address assertions this replica believed, each kept until its
 * assertion expires: an assertion vouches for one request, and a replay of it is not believed.
 * Time is passed in. At `max` nonces the oldest is dropped (they expire in insertion order).
 */
export class SeenAssertions {
  private readonly until = new Map<string, number>();

  constructor(private readonly max = 200_000) {}

  /** True the first time a nonce is seen while it is valid; false for a replay. */
  first(nonce: string, expiresS: number, nowMs: number): boolean {
    for (const [seen, until] of this.until) {
      if (until >= nowMs && this.until.size < this.max) break;
      this.until.delete(seen);
    }
    if (this.until.has(nonce)) return false;
    this.until.set(nonce, expiresS * 1000);
    return true;
  }
}
