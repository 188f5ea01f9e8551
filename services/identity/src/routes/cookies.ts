import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '@meridian/contracts';
import type { NewSession } from '../flows/sessions.js';

/** HttpOnly, Secure, SameSite=Lax, Path=/; it lasts as long as the session's absolute lifetime. */
export function setSessionCookie(res: Response, session: NewSession): void {
  res.cookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    path: '/',
    expires: new Date(session.expires_at),
  });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'lax', path: '/' });
}

/**
 * The login challenge of an OpenID sign-in whose account has TOTP on: the callback is a redirect,
 * so the challenge travels in this cookie (HttpOnly, SameSite=Strict, only sent to /auth/2fa,
 * gone with the challenge) and POST /auth/2fa/verify takes it from there.
 */
export const CHALLENGE_COOKIE = 'meridian_2fa';
const CHALLENGE_COOKIE_OPTIONS = {
  httpOnly: true,
  secure: true,
  sameSite: 'strict',
  path: '/auth/2fa',
} as const;

export function setChallengeCookie(
  res: Response,
  challenge: { challenge: string; challenge_expires_at: string },
) {
  res.cookie(CHALLENGE_COOKIE, challenge.challenge, {
    ...CHALLENGE_COOKIE_OPTIONS,
    expires: new Date(challenge.challenge_expires_at),
  });
}

export function clearChallengeCookie(res: Response): void {
  res.clearCookie(CHALLENGE_COOKIE, CHALLENGE_COOKIE_OPTIONS);
}

/** The raw session token of a request: the cookie, else `Authorization: Bearer`. */
export function sessionTokenOf(req: Request): string | undefined {
  const cookie = readCookie(req.header('cookie'), SESSION_COOKIE);
  if (cookie) return cookie;
  const auth = req.header('authorization');
  const match = auth?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

/** A cookie's value; a malformed one (bad percent-encoding) counts as no cookie. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decoded(part.slice(eq + 1).trim());
  }
  return undefined;
}

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
