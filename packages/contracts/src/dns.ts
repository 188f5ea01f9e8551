/**
 * The codes node:dns gives a name that does not exist, or has no record of the asked type
 * (c-ares and getaddrinfo spell it several ways): an answer of the DNS, not a failure to reach it.
 */
export const DNS_NAME_ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'ENONAME', 'NXDOMAIN']);

/** Whether a DNS lookup failed because the name or the record type does not exist. */
export function isDnsNameAbsent(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && DNS_NAME_ABSENT.has(code);
}
