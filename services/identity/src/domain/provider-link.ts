import { createHash } from 'node:crypto';

/**
 * The public id of a provider link, derived from the identity it binds (issuer, subject): stable,
 * needing no column of its own, and it does not show the subject the provider gave.
 */
export function providerLinkId(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\n${subject}`, 'utf8').digest('hex').slice(0, 32);
}
