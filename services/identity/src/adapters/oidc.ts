import type * as client from 'openid-client';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { OidcProviderConfig } from '../config.js';
import { needsUserinfo, providerEmail } from '../domain/provider-email.js';

export interface OidcProvider {
  config: OidcProviderConfig;
  /** Discovered on first use and kept; a failed discovery is tried again on the next sign-in. */
  client(): Promise<client.Configuration>;
}

/** Plain http is allowed only for an issuer on this machine (tests, a local provider). */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

export class OidcRegistry {
  private readonly providers = new Map<string, OidcProvider>();

  constructor(configs: OidcProviderConfig[]) {
    for (const config of configs) this.providers.set(config.id, lazyProvider(config));
  }

  list(): OidcProviderConfig[] {
    return [...this.providers.values()].map((p) => p.config);
  }

  get(id: string): OidcProvider | undefined {
    return this.providers.get(id);
  }
}

function lazyProvider(config: OidcProviderConfig): OidcProvider {
  let discovered: Promise<client.Configuration> | undefined;
  return {
    config,
    client: () => {
      discovered ??= discover(config).catch((err: unknown) => {
        discovered = undefined;
        throw err;
      });
      return discovered;
    },
  };
}

/** openid-client, loaded at the first sign-in with a provider, not at start, to keep it out of idle memory. */
const openid = () => import('openid-client');

async function discover(config: OidcProviderConfig): Promise<client.Configuration> {
  const client = await openid();
  const auth = config.client_secret ? client.ClientSecretPost(config.client_secret) : client.None();
  return client.discovery(
    new URL(config.issuer),
    config.client_id,
    { redirect_uris: [config.redirect_uri], response_types: ['code'] },
    auth,
    { execute: isLoopbackIssuer(config.issuer) ? [client.allowInsecureRequests] : [], timeout: 10 },
  );
}

export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

export interface FlowSecrets {
  state: string;
  nonce: string;
  code_verifier: string;
}

const unreachable = (provider: OidcProvider) =>
  refuse('provider_unreachable', `The sign-in provider ${provider.config.name} cannot be reached.`);

/** The provider's authorization URL with state, nonce and a PKCE challenge; the secrets stay with us. */
export async function authorizationRequest(
  provider: OidcProvider,
): Promise<Result<{ url: URL; secrets: FlowSecrets }, 'provider_unreachable'>> {
  const config = await provider.client().catch(() => undefined);
  if (!config) return unreachable(provider);
  const client = await openid();
  const secrets = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    code_verifier: client.randomPKCECodeVerifier(),
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: provider.config.redirect_uri,
    scope: 'openid email',
    state: secrets.state,
    nonce: secrets.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(secrets.code_verifier),
    code_challenge_method: 'S256',
  });
  return ok({ url, secrets });
}

/**
 * The return leg: code for tokens (PKCE, state and nonce checked by openid-client), then the
 * identity's claims, with userinfo asked when the ID token lacks the email or its verification.
 */
export async function exchangeCode(
  provider: OidcProvider,
  callbackUrl: URL,
  secrets: FlowSecrets,
): Promise<Result<ProviderIdentity, 'provider_unreachable' | 'oidc_refused'>> {
  const config = await provider.client().catch(() => undefined);
  if (!config) return unreachable(provider);
  const client = await openid();
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: secrets.code_verifier,
      expectedState: secrets.state,
      expectedNonce: secrets.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    return refuse('oidc_refused', `the provider's answer did not validate (${whyRefused(err)})`);
  }
  const claims = tokens.claims()!;
  const userinfo =
    needsUserinfo(claims) && tokens.access_token && config.serverMetadata().userinfo_endpoint
      ? await client.fetchUserInfo(config, tokens.access_token, claims.sub)
      : undefined;
  const { email, verified } = providerEmail(claims, userinfo);
  return ok({ issuer: claims.iss, subject: claims.sub, email, emailVerified: verified });
}

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
