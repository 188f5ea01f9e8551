import type { NextFunction, Request, Response } from 'express';
import { corsHeaders, isPreflight, type CorsPolicy } from '../domain/cors.js';

/** CORS fields on every answer of the express path; a preflight is answered here with 204. */
export function cors(policy: CorsPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const preflight = isPreflight(req.method, req.headers);
    const headers = corsHeaders(policy, req.header('origin'), preflight);
    if (headers) res.set(headers);
    if (preflight) return void res.status(204).end();
    next();
  };
}
