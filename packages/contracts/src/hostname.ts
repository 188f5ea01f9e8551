import { domainToASCII } from 'node:url';
import { ok, refuse, type Result } from './result.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * A domain as the account typed it, made a bare lower-case ASCII hostname: IDN labels become
 * punycode (`bücher.example` → `xn--bcher-kva.example`), one trailing dot is dropped. A scheme,
 * port, path, query, user part, wildcard, IP address or single label is refused with the reason.
 */
export function normalizeHostname(input: string): Result<string, 'validation_failed'> {
  const text = input.trim();
  if (text.length === 0) return refuse('validation_failed', 'domain: must not be empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    return refuse('validation_failed', 'domain: a bare hostname without a scheme (no https://)');
  if (text.includes('/') || text.includes('?') || text.includes('#'))
    return refuse('validation_failed', 'domain: a bare hostname without a path or query');
  if (text.includes('@')) return refuse('validation_failed', 'domain: a bare hostname without a user part');
  if (text.includes(':') || text.includes('['))
    return refuse('validation_failed', 'domain: a bare hostname without a port');
  if (text.includes('*')) return refuse('validation_failed', 'domain: wildcards are not domains');
  const ascii = domainToASCII(text.replace(/\.$/, '').toLowerCase());
  if (!ascii) return refuse('validation_failed', 'domain: not a valid hostname');
  if (IPV4.test(ascii)) return refuse('validation_failed', 'domain: an IP address is not a domain');
  if (ascii.length > 253) return refuse('validation_failed', 'domain: longer than 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2)
    return refuse('validation_failed', 'domain: needs at least two labels (example.com)');
  if (!labels.every((l) => LABEL.test(l)))
    return refuse('validation_failed', 'domain: labels are letters, digits and inner hyphens, 63 at most');
  if (/^\d+$/.test(labels.at(-1)!))
    return refuse('validation_failed', 'domain: the top-level label is not numeric');
  return ok(ascii);
}
