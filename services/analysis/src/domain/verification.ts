/**
 * DNS ownership proof: the account publishes a TXT record `_meridian-verify.<domain>` whose value
 * is `meridian-verify=<token>`; the token is 32 random bytes (256 bits) in base64url.
 */
export const VERIFY_LABEL = '_meridian-verify';
export const VERIFY_PREFIX = 'meridian-verify=';

export function verificationRecord(
  hostname: string,
  token: string,
): { type: 'TXT'; name: string; value: string } {
  return { type: 'TXT', name: `${VERIFY_LABEL}.${hostname}`, value: `${VERIFY_PREFIX}${token}` };
}

/** Whether any TXT record (its strings joined, as RFC 7208 joins them) carries the token exactly. */
export function proves(txt: string[][], token: string): boolean {
  const expected = `${VERIFY_PREFIX}${token}`;
  return txt.some((chunks) => chunks.join('').trim() === expected);
}
