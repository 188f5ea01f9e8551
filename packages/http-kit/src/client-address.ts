import { createHmac, timingSafeEqual } from 'node:crypto';

/** An assertion crosses one hop, from an edge of ours to the gateway. */
const CLIENT_ADDRESS_TTL_S = 60;
/** Keeps these MACs apart from every other use of the internal secret (a JWT never starts so). */
const PURPOSE = 'meridian-client-address.v1';
const ADDRESS = /^[0-9A-Za-z:.%_-]{1,64}$/;

const macOf = (address: string, expires: number, key: Uint8Array) =>
  createHmac('sha256', key).update(`${PURPOSE}\n${address}\n${expires}`).digest();

/**
 * Signed by an edge of ours that calls the gateway on a client's behalf (the MCP server): the
 * address of that client, so the gateway keeps its per-address budgets per client, not per edge.
 * `<address> <expiry, unix seconds> <HMAC-SHA256, base64url>`, with the internal secret's key;
 * synchronous, since the gateway reads it on its hot path.
 */
export function signClientAddress(address: string, key: Uint8Array, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + CLIENT_ADDRESS_TTL_S;
  return `${address} ${expires} ${macOf(address, expires, key).toString('base64url')}`;
}

/** The address a valid, unexpired assertion names; undefined for anything else, which is ignored. */
export function verifyClientAddress(
  value: string | string[] | undefined,
  key: Uint8Array,
  now = Date.now(),
): string | undefined {
  if (typeof value !== 'string' || value.length > 200) return undefined;
  const [address, expiresText, mac, extra] = value.split(' ');
  if (extra !== undefined || !address || !expiresText || !mac || !ADDRESS.test(address)) return undefined;
  const expires = Number(expiresText);
  if (!Number.isSafeInteger(expires) || expires * 1000 < now) return undefined;
  if (expires > Math.floor(now / 1000) + CLIENT_ADDRESS_TTL_S + 5) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const want = macOf(address, expires, key);
  return given.length === want.length && timingSafeEqual(given, want) ? address : undefined;
}
