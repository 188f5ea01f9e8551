import { Router } from 'express';
import { buildServiceApp } from '@meridian/runtime';
import { SERVICE, type IdentityDeps } from './deps.js';
import { accountRoutes } from './routes/account.js';
import { authRoutes, FORM_PATHS } from './routes/auth.js';
import { keyRoutes } from './routes/keys.js';
import { oauthRoutes } from './routes/oauth.js';
import { operatorAccountRoutes } from './routes/operator-accounts.js';
import { PAGE_PATHS, pagePolicy } from './routes/pages.js';
import { twoFactorRoutes } from './routes/two-factor.js';

export { FORM_PATHS, SERVICE };

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(deps: IdentityDeps): Router {
  const router = Router();
  router.use(PAGE_PATHS, pagePolicy);
  router.use(
    authRoutes(deps),
    oauthRoutes(deps),
    accountRoutes(deps),
    twoFactorRoutes(deps),
    keyRoutes(deps),
    operatorAccountRoutes(deps),
  );
  return router;
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: IdentityDeps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes, formPaths: FORM_PATHS }, deps, ready);
}
