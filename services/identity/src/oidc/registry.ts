import * as client from 'openid-client';
import type { OidcProviderConfig } from '../config.js';

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

function discover(config: OidcProviderConfig): Promise<client.Configuration> {
  const auth = config.client_secret ? client.ClientSecretPost(config.client_secret) : client.None();
  return client.discovery(
    new URL(config.issuer),
    config.client_id,
    { redirect_uris: [config.redirect_uri], response_types: ['code'] },
    auth,
    { execute: isLoopbackIssuer(config.issuer) ? [client.allowInsecureRequests] : [], timeout: 10 },
  );
}
