/** The claims of an ID token or of a userinfo answer that speak of the end-user's email. */
export interface EmailClaims {
  email?: unknown;
  email_verified?: unknown;
  [claim: string]: unknown;
}

export interface ProviderEmail {
  email: string | undefined;
  verified: boolean;
}

/**
 * Whether to ask userinfo: the ID token lacks the address or whether it is verified. Providers differ
 * in which claims they put in the ID token (some keep `email_verified` for userinfo only).
 */
export function needsUserinfo(idToken: EmailClaims): boolean {
  return typeof idToken.email !== 'string' || typeof idToken.email_verified !== 'boolean';
}

/**
 * The address the provider shares and whether it vouches for it, from the ID token completed by
 * userinfo. `email_verified` speaks of the address beside it: userinfo's when it names one, else the
 * ID token's. Userinfo naming another address without saying it is verified vouches for nothing.
 */
export function providerEmail(idToken: EmailClaims, userinfo: EmailClaims = {}): ProviderEmail {
  const fromToken = normalised(idToken.email);
  const fromUserinfo = normalised(userinfo.email);
  const email = fromUserinfo ?? fromToken;
  const verified =
    typeof userinfo.email_verified === 'boolean'
      ? userinfo.email_verified
      : email !== undefined && email === fromToken && idToken.email_verified === true;
  return { email, verified };
}

function normalised(email: unknown): string | undefined {
  return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
}
