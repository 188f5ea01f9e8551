import { Router, type Request } from 'express';
import { envelope, httpProblem } from '@meridian/http-kit';
import type { OidcProvider } from '../adapters/oidc.js';
import type { IdentityDeps } from '../deps.js';
import { beginProviderSignIn, FLOW_TTL_MS } from '../flows/begin-provider-sign-in.js';
import { finishProviderSignIn } from '../flows/finish-provider-sign-in.js';
import { valueOf } from './answer.js';
import { readCookie, setChallengeCookie, setSessionCookie } from './cookies.js';

/** Binds a sign-in flow to the browser that began it; short-lived and only sent to /auth/oauth. */
export const FLOW_COOKIE = 'meridian_oidc';
const FLOW_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax', path: '/auth/oauth' } as const;

export function oauthRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.get('/auth/providers', (_req, res) => {
    const providers = deps.oidc
      .list()
      .map((p) => ({ id: p.id, name: p.name, authorize_url: `/auth/oauth/${p.id}` }));
    res.json(envelope({ password: true, providers }));
  });
  router.get('/auth/oauth/:provider', async (req, res) => {
    const begun = valueOf(await beginProviderSignIn(deps, providerOf(deps, req)));
    res.cookie(FLOW_COOKIE, begun.browser, { ...FLOW_COOKIE_OPTIONS, maxAge: FLOW_TTL_MS });
    res.redirect(302, begun.redirect.href);
  });
  router.get('/auth/oauth/:provider/callback', async (req, res) => {
    const provider = providerOf(deps, req);
    const browser = readCookie(req.header('cookie'), FLOW_COOKIE);
    res.clearCookie(FLOW_COOKIE, FLOW_COOKIE_OPTIONS);
    const outcome = valueOf(
      await finishProviderSignIn(deps, provider, {
        browser,
        state: req.query.state,
        callbackUrl: new URL(req.originalUrl, provider.config.redirect_uri),
      }),
    );
    const home = `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/`;
    if ('challenge' in outcome) {
      // The provider vouched for the first factor only: the second is still owed, as after a password.
      setChallengeCookie(res, outcome.challenge);
      res.redirect(302, `${home}?two_factor=required`);
      return;
    }
    setSessionCookie(res, outcome.session);
    res.redirect(302, home);
  });
  return router;
}

function providerOf(deps: IdentityDeps, req: Request): OidcProvider {
  const provider = deps.oidc.get(String(req.params.provider));
  if (!provider) throw httpProblem('not_found', 'No such sign-in provider; see GET /auth/providers.');
  return provider;
}
