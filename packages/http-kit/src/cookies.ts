import { parseCookie } from 'cookie';

/**
 * One cookie's value from a request's Cookie header (RFC 6265 5.4), read by the `cookie` package:
 * the first cookie of the name wins, double quotes around a value are dropped, and an empty or
 * badly percent-encoded value counts as no cookie.
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  return parseCookie(header, { decode: decodedOrEmpty })[name] || undefined;
}

/** '' rather than undefined for a bad value, so that a later cookie of the name cannot stand in. */
function decodedOrEmpty(raw: string): string {
  const value = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  try {
    return decodeURIComponent(value);
  } catch {
    return '';
  }
}
