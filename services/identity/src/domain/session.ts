/**
 * A session lives until it is revoked, until `idleSeconds` pass without use, or until
 * `absoluteSeconds` after sign-in, whichever comes first.
 */
export interface SessionTimes {
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

export function sessionExpiry(createdAt: Date, absoluteSeconds: number): Date {
  return new Date(createdAt.getTime() + absoluteSeconds * 1000);
}

export function sessionIsLive(s: SessionTimes, idleSeconds: number, now: Date): boolean {
  if (s.revokedAt) return false;
  if (s.expiresAt <= now) return false;
  return now.getTime() - s.lastSeenAt.getTime() < idleSeconds * 1000;
}

/** last_seen_at is written at most once a minute per session, so a busy session costs no write per request. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export function lastSeenIsStale(lastSeenAt: Date, now: Date): boolean {
  return now.getTime() - lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS;
}
