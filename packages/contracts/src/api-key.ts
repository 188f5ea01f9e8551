import { crc32 } from 'node:zlib';

/**
 * The API key format that identity issues and the gateway checks before asking identity:
 * `mk_live_` + key id (12 base62) + secret (32 base62, about 190 bits) + checksum (6 base62 of
 * the CRC-32 of everything before it). Fixed length, so the parts need no separator. The id
 * makes identity's lookup one indexed row; the checksum lets a secret scanner, or the gateway,
 * tell a real key from noise without a round trip.
 */
export const API_KEY_PREFIX = 'mk_live_';
export const API_KEY_ID_LENGTH = 12;
export const API_KEY_SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH =
  API_KEY_PREFIX.length + API_KEY_ID_LENGTH + API_KEY_SECRET_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_ID_LENGTH + API_KEY_SECRET_LENGTH + CHECKSUM_LENGTH}}$`,
);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function checksum(body: string): string {
  let out = '';
  for (let i = 0, rest = crc32(body); i < CHECKSUM_LENGTH; i++, rest = Math.floor(rest / 62))
    out = BASE62[rest % 62] + out;
  return out;
}

/** The whole key for an id and a secret (both base62 of the lengths above). */
export function formatApiKey(id: string, secret: string): string {
  const body = `${API_KEY_PREFIX}${id}${secret}`;
  return `${body}${checksum(body)}`;
}

/** The id and secret of a well-formed key with a valid checksum; undefined for noise. */
export function parseApiKey(key: string): { id: string; secret: string } | undefined {
  if (key.length !== API_KEY_LENGTH || !KEY_PATTERN.test(key)) return undefined;
  if (checksum(key.slice(0, -CHECKSUM_LENGTH)) !== key.slice(-CHECKSUM_LENGTH)) return undefined;
  const start = API_KEY_PREFIX.length;
  return {
    id: key.slice(start, start + API_KEY_ID_LENGTH),
    secret: key.slice(start + API_KEY_ID_LENGTH, -CHECKSUM_LENGTH),
  };
}

/** Whether a bearer token is meant as an API key rather than a session token. */
export const looksLikeApiKey = (token: string): boolean => token.startsWith(API_KEY_PREFIX);
