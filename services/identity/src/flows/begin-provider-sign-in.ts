import { ok, type Result } from '@meridian/contracts';
import { authorizationRequest, type OidcProvider } from '../adapters/oidc.js';
import { insertFlow } from '../db/repositories/oidc.js';
import { hashToken, newToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';

export const FLOW_TTL_MS = 10 * 60 * 1000;

/**
 * Starts a sign-in through a provider: the flow's secrets are kept under the hash of a random
 * browser token (the route sets it as a cookie), and the provider's URL is answered.
 */
export async function beginProviderSignIn(
  deps: IdentityDeps,
  provider: OidcProvider,
): Promise<Result<{ redirect: URL; browser: string }, 'provider_unreachable'>> {
  const request = await authorizationRequest(provider);
  if (!request.ok) return request;
  const browser = newToken();
  await insertFlow(deps.db, {
    browser_hash: hashToken(browser),
    provider: provider.config.id,
    expires_at: new Date(Date.now() + FLOW_TTL_MS),
    ...request.value.secrets,
  });
  return ok({ redirect: request.value.url, browser });
}
