const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const IP = /^[0-9A-Fa-f:.]{2,45}$/;

/** A peer named by CLIENT_ADDRESS_PROXY: an exact address, `loopback` or `uniquelocal`. */
function named(peer: string, entry: string): boolean {
  if (entry === 'loopback') return /^127\./.test(peer) || peer === '::1';
  if (entry === 'uniquelocal')
    return /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(peer) || /^f[cd][0-9a-f]{2}:/i.test(peer);
  return peer === entry;
}

/** CLIENT_ADDRESS_PROXY as a list: empty (none) unless set. */
export function proxiesOf(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '' && t !== 'none');
}

/**
 * The address an MCP request came from, the one this edge vouches for to the gateway: the socket's
 * peer, unless that peer is the proxy in front of this edge (CLIENT_ADDRESS_PROXY: the gateway),
 * whose X-Forwarded-For names the client in its last entry, the one that proxy wrote. Entries
 * before it are whatever the client claimed, and a header from any other peer is not read.
 */
export function clientAddressOf(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  proxies: readonly string[],
): string | undefined {
  if (!peer) return undefined;
  const socket = MAPPED_V4.exec(peer)?.[1] ?? peer;
  if (!proxies.some((entry) => named(socket, entry)) || typeof forwardedFor !== 'string') return socket;
  const written = forwardedFor.split(',').at(-1)?.trim() ?? '';
  return IP.test(written) ? written : socket;
}
