import type { Request, Response } from 'express';
import { z } from 'zod';
import { SESSION_COOKIE } from '@meridian/contracts';
import { cookieValue } from '@meridian/http-kit';
import { KNOWN_FOR_MS, type SignInPlace } from '../flows/known-sign-ins.js';
import type { NewSession } from '../flows/sessions.js';
import { clientAddress } from './answer.js';

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

/**
 * The browser's device token (flows/known-sign-ins.ts): HttpOnly, Secure, sent to /auth only;
 * SameSite=Lax, so the provider's redirect to the callback carries it too.
 */
const DEVICE_COOKIE = 'meridian_device';
const DEVICE_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax', path: '/auth' } as const;
/** newToken's form: 32 bytes in base64url; anything else counts as no cookie. */
const deviceToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export function setDeviceCookie(res: Response, token: string): void {
  res.cookie(DEVICE_COOKIE, token, { ...DEVICE_COOKIE_OPTIONS, maxAge: KNOWN_FOR_MS });
}

/** Where a sign-in comes from: the browser's device token, if any, and the client address. */
export function signInPlaceOf(req: Request): SignInPlace {
  const parsed = deviceToken.safeParse(cookieValue(req.header('cookie'), DEVICE_COOKIE));
  return { device: parsed.success ? parsed.data : undefined, address: clientAddress(req) };
}

/** The raw session token of a request: the cookie, else `Authorization: Bearer`. */
export function sessionTokenOf(req: Request): string | undefined {
  const cookie = cookieValue(req.header('cookie'), SESSION_COOKIE);
  if (cookie) return cookie;
  const auth = req.header('authorization');
  const match = auth?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}
