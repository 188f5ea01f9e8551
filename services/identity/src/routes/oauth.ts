import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import { envelope, httpProblem } from '@meridian/http-kit';
import type { Database } from '../db/database.js';
import { confirmEmail, findAccountById, lockAccountByEmail } from '../db/repositories/accounts.js';
import { consumeFlow, findLinkedAccount, insertFlow, insertLink } from '../db/repositories/oidc.js';
import { needsUserinfo, providerEmail } from '../domain/provider-email.js';
import { hashToken, newToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, disownUnproven } from '../flows/accounts.js';
import { readCookie, setChallengeCookie, setSessionCookie, startSession } from '../flows/sessions.js';
import { startChallenge } from '../flows/two-factor.js';
import type { OidcProvider } from '../oidc/registry.js';

/** Binds a sign-in flow to the browser that began it; short-lived and only sent to /auth/oauth. */
export const FLOW_COOKIE = 'meridian_oidc';
const FLOW_TTL_MS = 10 * 60 * 1000;

export function oauthRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.get('/auth/providers', (_req, res) => {
    const providers = deps.oidc
      .list()
      .map((p) => ({ id: p.id, name: p.name, authorize_url: `/auth/oauth/${p.id}` }));
    res.json(envelope({ password: true, providers }));
  });
  router.get('/auth/oauth/:provider', async (req, res) => begin(deps, providerOf(deps, req), res));
  router.get('/auth/oauth/:provider/callback', async (req, res) =>
    callback(deps, providerOf(deps, req), req, res),
  );
  return router;
}

function providerOf(deps: IdentityDeps, req: Request): OidcProvider {
  const provider = deps.oidc.get(String(req.params.provider));
  if (!provider) throw httpProblem('not_found', 'No such sign-in provider; see GET /auth/providers.');
  return provider;
}

/** 302 to the provider with state, nonce and a PKCE challenge; their secrets stay server-side. */
async function begin(deps: IdentityDeps, provider: OidcProvider, res: Response): Promise<void> {
  const config = await reachable(provider);
  const browser = newToken();
  const flow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    code_verifier: client.randomPKCECodeVerifier(),
  };
  await insertFlow(deps.db, {
    browser_hash: hashToken(browser),
    provider: provider.config.id,
    expires_at: new Date(Date.now() + FLOW_TTL_MS),
    ...flow,
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: provider.config.redirect_uri,
    scope: 'openid email',
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.code_verifier),
    code_challenge_method: 'S256',
  });
  res.cookie(FLOW_COOKIE, browser, {
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    path: '/auth/oauth',
    maxAge: FLOW_TTL_MS,
  });
  res.redirect(302, url.href);
}

async function callback(
  deps: IdentityDeps,
  provider: OidcProvider,
  req: Request,
  res: Response,
): Promise<void> {
  const browser = readCookie(req.header('cookie'), FLOW_COOKIE);
  const flow = browser
    ? await consumeFlow(deps.db, hashToken(browser), provider.config.id, new Date())
    : undefined;
  res.clearCookie(FLOW_COOKIE, { httpOnly: true, secure: true, sameSite: 'lax', path: '/auth/oauth' });
  if (!flow) throw refused('no sign-in was started from this browser, or it expired or was already used');
  if (req.query.state !== flow.state) throw refused('the state does not match');
  const config = await reachable(provider);
  const identity = await exchange(config, provider, req, flow);
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountById(trx, await accountFor(trx, identity));
    // Portal 5.3. New links only go to confirmed accounts; this keeps any older link from signing in.
    if (!account?.email_confirmed_at)
      throw refused('the account of this identity has not confirmed its email address');
    if (account.totp_state === 'active')
      return { challenge: await startChallenge(trx, account.id, 'oidc') } as const;
    return { session: await startSession(trx, deps, account.id, 'oidc') } as const;
  });
  const home = `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/`;
  if (outcome.challenge) {
    // The provider vouched for the first factor only: the second is still owed, as after a password.
    setChallengeCookie(res, outcome.challenge);
    res.redirect(302, `${home}?two_factor=required`);
    return;
  }
  setSessionCookie(res, outcome.session);
  res.redirect(302, home);
}

interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

/** Code for tokens (PKCE, state and nonce checked by openid-client), then the identity's claims. */
async function exchange(
  config: client.Configuration,
  provider: OidcProvider,
  req: Request,
  flow: { state: string; nonce: string; code_verifier: string },
): Promise<ProviderIdentity> {
  const current = new URL(req.originalUrl, provider.config.redirect_uri);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw refused(`the provider's answer did not validate (${whyRefused(err)})`);
  }
  const claims = tokens.claims()!;
  const userinfo =
    needsUserinfo(claims) && tokens.access_token && config.serverMetadata().userinfo_endpoint
      ? await client.fetchUserInfo(config, tokens.access_token, claims.sub)
      : undefined;
  const { email, verified } = providerEmail(claims, userinfo);
  return { issuer: claims.iss, subject: claims.sub, email, emailVerified: verified };
}

/**
 * The account of a provider identity: the one linked to (issuer, subject); else the account of
 * the email the provider vouches for, linked from now on. An email the provider does not vouch
 * for is only a claim: it never makes an account nor links one, or whoever holds the identity
 * would keep a way into the account once the address's owner confirms it. An identity that
 * shares no email gets none either: an account must be able to confirm its address (portal 5.3).
 */
async function accountFor(trx: Kysely<Database>, who: ProviderIdentity): Promise<string> {
  const linked = await findLinkedAccount(trx, who.issuer, who.subject);
  if (linked) return linked;
  if (!who.email) throw refused('the provider shared no email address, and an account needs one to confirm');
  if (!who.emailVerified)
    throw refused(
      'the provider did not verify the email address; sign up with your email and a password, or use a provider that verifies it',
    );
  const accountId = await accountOfVerifiedEmail(trx, who.email);
  await insertLink(trx, who.issuer, who.subject, accountId);
  return accountId;
}

/**
 * The provider vouches for the address: the account of that email, or a new one with it
 * confirmed. An existing account whose email was never confirmed is disowned first (password,
 * links, sessions, keys, second factor), so whoever made it with someone else's address keeps no
 * way in.
 */
async function accountOfVerifiedEmail(trx: Kysely<Database>, email: string): Promise<string> {
  const byEmail = await lockAccountByEmail(trx, email);
  if (byEmail && !byEmail.email_confirmed_at) {
    await disownUnproven(trx, byEmail.id);
    await confirmEmail(trx, byEmail.id, new Date());
  }
  const accountId =
    byEmail?.id ?? (await createAccount(trx, { email, password_hash: null, email_confirmed_at: new Date() }));
  if (!accountId) throw httpProblem('conflict', 'The account could not be created; try again.');
  return accountId;
}

async function reachable(provider: OidcProvider): Promise<client.Configuration> {
  try {
    return await provider.client();
  } catch {
    throw httpProblem('bad_gateway', `The sign-in provider ${provider.config.name} cannot be reached.`);
  }
}

const refused = (why: string) =>
  httpProblem('bad_request', `The provider sign-in was refused: ${why}.`, { category: 'oidc_refused' });

/**
 * openid-client's reason: the provider's OAuth error when it answered one (e.g. `invalid_grant`
 * for a code already used), else the innermost error message (it names the claim, e.g. "nonce").
 */
function whyRefused(err: unknown): string {
  type Reason = { message?: unknown; cause?: unknown; error?: unknown; error_description?: unknown };
  let reason = err as Reason | undefined;
  for (;;) {
    if (typeof reason?.error === 'string') {
      const description =
        typeof reason.error_description === 'string' ? `: ${reason.error_description.slice(0, 200)}` : '';
      return `${reason.error}${description}`;
    }
    if (typeof reason?.cause !== 'object' || reason.cause === null || !('message' in reason.cause)) break;
    reason = reason.cause as Reason;
  }
  return typeof reason?.message === 'string' ? reason.message : 'unknown';
}
