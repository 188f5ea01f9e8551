import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An assertion crosses one hop, from an edge of ours to the gateway. */
const CLIENT_ADDRESS_TTL_S = 60;
/** Keeps these MACs apart from every other use of the internal secret (a JWT never starts so). */
const PURPOSE = 'meridian-client-address.v2';
const ADDRESS = /^[0-9A-Za-z:.%_-]{1,64}$/;
const NONCE = /^[0-9A-Za-z_-]{16,64}$/;

/** The client an edge vouches for, and the one request of the edge's it vouches on. */
export interface ClientAddressClaim {
  address: string;
  /** The request's method and target (path and query) as the gateway receives them. */
  method: string;
  target: string;
}

/** A verified assertion: the address, and the nonce and expiry a replay check keeps. */
export interface VouchedAddress {
  address: string;
  nonce: string;
  /** Unix seconds. */
  expires: number;
}

const macOf = (claim: ClientAddressClaim, expires: number, nonce: string, key: Uint8Array) =>
  createHmac('sha256', key)
    .update([PURPOSE, claim.address, claim.method.toUpperCase(), claim.target, expires, nonce].join('\n'))
    .digest();

/**
 * Signed by an edge of ours that calls the gateway on a client's behalf (the MCP server): the
 * address of that client, so the gateway keeps its per-address budgets per client, not per edge.
 * Bound to one request (method, target and a fresh nonce), so that it cannot be moved onto
 * another. `<address> <expiry, unix seconds> <nonce> <HMAC-SHA256, base64url>`, with the internal
 * secret's key; synchronous, since the gateway reads it on its hot path.
 */
export function signClientAddress(
  claim: ClientAddressClaim,
  key: Uint8Array,
  now = Date.now(),
  nonce = randomBytes(16).toString('base64url'),
): string {
  const expires = Math.floor(now / 1000) + CLIENT_ADDRESS_TTL_S;
  return `${claim.address} ${expires} ${nonce} ${macOf(claim, expires, nonce, key).toString('base64url')}`;
}

/**
 * What a valid, unexpired assertion vouches for on this request (`method`, `target`); undefined for
 * anything else (another request's assertion included), which is ignored. The caller keeps the
 * nonces it accepted until they expire, so that one assertion vouches once.
 */
export function verifyClientAddress(
  value: string | string[] | undefined,
  request: { method: string; target: string },
  key: Uint8Array,
  now = Date.now(),
): VouchedAddress | undefined {
  if (typeof value !== 'string' || value.length > 300) return undefined;
  const [address, expiresText, nonce, mac, extra] = value.split(' ');
  if (extra !== undefined || !address || !expiresText || !nonce || !mac) return undefined;
  if (!ADDRESS.test(address) || !NONCE.test(nonce)) return undefined;
  const expires = Number(expiresText);
  if (!Number.isSafeInteger(expires) || expires * 1000 < now) return undefined;
  if (expires > Math.floor(now / 1000) + CLIENT_ADDRESS_TTL_S + 5) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const want = macOf({ address, ...request }, expires, nonce, key);
  return given.length === want.length && timingSafeEqual(given, want)
    ? { address, nonce, expires }
    : undefined;
}
