import type { NextFunction, Request, Response } from 'express';
import { httpProblem } from '@meridian/http-kit';
import { crossSiteRefusal, type SiteOrigins } from '../domain/cross-site.js';
import { accessOf, LOGOUT_PATH } from '../domain/route-table.js';
import type { SessionSource } from './portal-auth.js';

/**
 * Express step after portalAuth: a state change the session cookie authenticates must come from
 * our own site with a JSON body (domain/cross-site.ts). Calls with a bearer session or an API key
 * are not concerned: no browser adds those to another site's request. An anonymous route only
 * when it acts on the cookie's session (logout); the others carry their own credential in the body.
 */
export function sameSiteChanges(origins: SiteOrigins) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((res.locals.sessionSource as SessionSource | undefined) !== 'cookie') return next();
    // `/auth/logout/` reaches identity's logout too.
    const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    if (accessOf(path) === 'anonymous' && path !== LOGOUT_PATH) return next();
    const refusal = crossSiteRefusal(req.method, req.headers, origins);
    if (refusal) return next(httpProblem(refusal.kind, refusal.detail));
    next();
  };
}
