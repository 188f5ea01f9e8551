import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { cookieValue, envelope, httpProblem, parseInput, parseQuery } from '@meridian/http-kit';
import type { OidcProvider } from '../adapters/oidc.js';
import type { IdentityDeps } from '../deps.js';
import { beginProviderSignIn, FLOW_TTL_MS } from '../flows/begin-provider-sign-in.js';
import { confirmProviderLink } from '../flows/confirm-provider-link.js';
import { finishProviderSignIn } from '../flows/finish-provider-sign-in.js';
import { valueOf } from './answer.js';
import { setChallengeCookie, setDeviceCookie, setSessionCookie, signInPlaceOf } from './cookies.js';
import { confirmLinkPage, invalidLinkPage, providerLinkedPage } from './pages.js';

/** Binds a sign-in flow to the browser that began it; short-lived and only sent to /auth/oauth. */
export const FLOW_COOKIE = 'meridian_oidc';
const FLOW_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax', path: '/auth/oauth' } as const;

/** The path of the mailed link by which an account's owner consents to a provider link. */
export const LINK_CONFIRM_PATH = '/auth/oauth/link/confirm';
const tokenInput = z.object({ token: z.string().min(20).max(128) });
/** The confirmation page's form post: a token only. */
const linkForm = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 2 });

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
    const browser = cookieValue(req.header('cookie'), FLOW_COOKIE);
    res.clearCookie(FLOW_COOKIE, FLOW_COOKIE_OPTIONS);
    const caller = req.caller;
    const outcome = valueOf(
      await finishProviderSignIn(deps, provider, {
        browser,
        state: req.query.state,
        callbackUrl: new URL(req.originalUrl, provider.config.redirect_uri),
        signedIn: caller?.auth === 'session' ? (caller.account_id ?? undefined) : undefined,
        place: signInPlaceOf(req),
      }),
    );
    const home = `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/`;
    if ('challenge' in outcome) {
      // The provider vouched for the first factor only: the second is still owed, as after a password.
      setChallengeCookie(res, outcome.challenge);
      res.redirect(302, `${home}?two_factor=required`);
      return;
    }
    if ('linked' in outcome) return res.redirect(302, `${home}?provider_linked=${provider.config.id}`);
    if ('consent_mailed' in outcome) return res.redirect(302, `${home}?provider_link=mailed`);
    setSessionCookie(res, outcome.session);
    setDeviceCookie(res, outcome.device);
    res.redirect(302, home);
  });
  router.post(LINK_CONFIRM_PATH, linkForm, async (req, res) => {
    const { token } = parseInput(tokenInput, req.body);
    const confirmed = await confirmProviderLink(deps, token);
    if (!req.is('application/x-www-form-urlencoded')) {
      res.json(envelope(valueOf(confirmed)));
      return;
    }
    if (confirmed.ok) res.type('html').send(providerLinkedPage());
    else res.status(400).type('html').send(invalidLinkPage('link'));
  });
  // The mailed link: a GET changes nothing (mail scanners follow links), its button posts the token.
  router.get(LINK_CONFIRM_PATH, (req, res) => {
    const { token } = parseQuery(tokenInput, req.query);
    res.type('html').send(confirmLinkPage(token));
  });
  return router;
}

function providerOf(deps: IdentityDeps, req: Request): OidcProvider {
  const provider = deps.oidc.get(String(req.params.provider));
  if (!provider) throw httpProblem('not_found', 'No such sign-in provider; see GET /auth/providers.');
  return provider;
}
