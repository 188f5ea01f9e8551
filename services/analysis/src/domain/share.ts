import { createHash, randomBytes } from 'node:crypto';

/**
 * Share links of a report. The token is the link's only credential: 256 random bits, shown once
 * at minting, stored as its SHA-256. Who it works for is its audience: anyone holding the link,
 * signed-in accounts only, or the signed-in accounts of named emails.
 */
export type Audience = { kind: 'anyone' } | { kind: 'signed_in' } | { kind: 'emails'; emails: string[] };

export interface ShareLink {
  run_id: string;
  audience: Audience;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface Viewer {
  account_id: string;
  email: string | null;
}

export type ShareVerdict = 'readable' | 'revoked' | 'expired' | 'sign_in' | 'not_for_you';

export function mintShareToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashShareToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A token as minted: 43 base64url characters. Anything else is not looked up. */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Whether `viewer` (null: not signed in) may read through `link` at `now`. */
export function shareVerdict(link: ShareLink, viewer: Viewer | null, now: Date): ShareVerdict {
  if (link.revoked_at && link.revoked_at <= now) return 'revoked';
  if (link.expires_at && link.expires_at <= now) return 'expired';
  if (link.audience.kind === 'anyone') return 'readable';
  if (!viewer) return 'sign_in';
  if (link.audience.kind === 'signed_in') return 'readable';
  const email = viewer.email?.toLowerCase();
  return email && link.audience.emails.includes(email) ? 'readable' : 'not_for_you';
}
