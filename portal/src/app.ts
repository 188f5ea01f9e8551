import type { Express, Request, Response } from 'express';
import { createHttpApp, finishApp } from '@meridian/http-kit';
import { probeRouter } from '@meridian/runtime';
import type { Deps } from './deps.js';

/**
 * The policy of the portal's pages: scripts and styles from our own origin only (no inline
 * script or style), calls to our own origin (the gateway's API), images of our own or `data:`
 * (QR codes), never framed.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The built single-page app: `/` and its hashed `/assets/*` files, nothing else. */
export function createApp(deps: Deps): Express {
  const app = createHttpApp({ logger: deps.logger, metrics: deps.metrics });
  app.use(probeRouter('portal', deps.metrics, async () => {}));
  const serve = (name: string, res: Response) => {
    const asset = deps.assets.get(name);
    if (!asset) return false;
    res
      .status(200)
      .set('Content-Type', asset.type)
      .set('Content-Security-Policy', PAGE_CSP)
      .set('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .set('Referrer-Policy', 'no-referrer')
      .send(asset.body);
    return true;
  };
  app.get('/', (_req: Request, res: Response) => {
    serve('/', res);
  });
  app.get('/assets/:name', (req: Request, res: Response, next) => {
    if (!serve(`/assets/${String(req.params.name)}`, res)) next();
  });
  return finishApp(app);
}
