import type { NextFunction, Request, Response } from 'express';
import { SESSION_COOKIE } from '@meridian/contracts';
import type { Problem } from '@meridian/contracts';
import { HttpProblem, cookieValue, httpProblem } from '@meridian/http-kit';
import type { IdentityCaches } from '../adapters/identity.js';
import { bearerChallenge, bearerToken, keyCaller, sessionCaller } from '../domain/credentials.js';
import { keyFormatValid, looksLikeApiKey } from '../domain/key-format.js';
import { accessOf, LOGOUT_PATH, routeOwner, STEP_UP_PATH } from '../domain/route-table.js';
import { callOf } from './front.js';

/** Where a portal call's session came from; only a cookie is sent by a browser on its own. */
export type SessionSource = 'bearer' | 'cookie';

/** The session a portal call carries: `Authorization: Bearer <token>` first, else the cookie. */
function sessionToken(req: Request): { token: string; source: SessionSource } | undefined {
  const bearer = bearerToken(req.headers);
  if (bearer && !looksLikeApiKey(bearer)) return { token: bearer, source: 'bearer' };
  const cookie = cookieValue(req.headers.cookie, SESSION_COOKIE);
  return cookie !== undefined ? { token: cookie, source: 'cookie' } : undefined;
}

/**
 * The address whose budget of failed verifications a miss spends: the one the front worked out
 * for the call (edge/call.ts), as on the data path; TRUST_PROXY's when no front ran.
 */
function clientOf(req: Request, res: Response): () => string {
  return () => callOf(res)?.client ?? req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

function answer(problem: Problem): HttpProblem {
  const headers: Record<string, string> = {};
  if (problem.retry_after !== undefined) headers['retry-after'] = String(problem.retry_after);
  return new HttpProblem(problem, headers);
}

/** The 401 of the audit portal, with the bearer challenge RFC 9110 requires on every 401. */
function noSession(presented: boolean): HttpProblem {
  const refusal = httpProblem('unauthorized', 'A valid session is required (sign in first).');
  return new HttpProblem(refusal.body, { 'www-authenticate': bearerChallenge(presented) });
}

/**
 * The replica that carried a logout forgets the session as soon as identity confirms it, so the
 * same client's next call is refused at once; the other replicas learn it from the revocation event.
 */
function forgetOnLogout(res: Response, caches: IdentityCaches, sessionId: string): void {
  res.on('finish', () => {
    if (res.statusCode < 300) caches.sessions.revoke(sessionId);
  });
}

/**
 * A session that just passed a step-up is verified again on its next call, so its new
 * `second_factor_at` reaches the operator routes at once on this replica (the others within their
 * cache's lifetime).
 */
function forgetOnStepUp(res: Response, caches: IdentityCaches, sessionId: string): void {
  res.on('finish', () => {
    if (res.statusCode < 300) caches.sessions.forget(sessionId);
  });
}

/**
 * The 401 rule of the audit portal at the edge: every portal route needs a session identity
 * vouches for, except the anonymous ones of the route table. Sets `res.locals.caller`.
 */
export function portalAuth(caches: IdentityCaches) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!routeOwner(req.path)) return next();
    const access = accessOf(req.path);
    if (access === 'public') return next();
    const presentedSession = sessionToken(req);
    const token = presentedSession?.token;
    const session = token ? await caches.sessions.verify(token, clientOf(req, res)) : undefined;
    if (session?.ok) {
      res.locals.caller = sessionCaller(session.value);
      res.locals.sessionSource = presentedSession!.source;
      if (req.method === 'POST' && req.path === LOGOUT_PATH)
        forgetOnLogout(res, caches, session.value.session_id);
      if (req.method === 'POST' && req.path === STEP_UP_PATH)
        forgetOnStepUp(res, caches, session.value.session_id);
      return next();
    }
    // An anonymous route serves whoever was not vouched for as anonymous, whatever the reason: a
    // spent budget (429), lookups of the address busy (503) or identity down, so a stale cookie
    // or a flood from a shared address does not block sign-in.
    if (access === 'anonymous') return next();
    if (session && session.problem.status !== 401) return next(answer(session.problem));
    let presented = token !== undefined;
    if (access === 'session_or_key') {
      const key = req.header('x-api-key') ?? bearerToken(req.headers);
      const verified =
        key && keyFormatValid(key) ? await caches.keys.verify(key, clientOf(req, res)) : undefined;
      if (verified?.ok) {
        res.locals.caller = keyCaller(verified.value);
        return next();
      }
      if (verified && verified.problem.status !== 401) return next(answer(verified.problem));
      presented ||= key !== undefined;
    }
    next(noSession(presented));
  };
}
