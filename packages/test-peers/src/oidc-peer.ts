import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const OIDC_CLIENT = { id: 'meridian', secret: 'meridian-test-client-secret-0123456789' };

export interface Person {
  email?: string;
  email_verified: boolean;
  /** Which of the above the ID token carries too; by default none: they are in userinfo only. */
  inIdToken?: ('email' | 'email_verified')[];
}

export interface OidcPeer {
  issuer: string;
  /** People known to the provider, by subject; one without an email shares none. */
  people: Map<string, Person>;
  /** Drives the provider's login and consent pages as a person would; answers the redirect back. */
  authorize(url: URL, subject: string): Promise<URL>;
  close(): Promise<void>;
}

/** A real OpenID provider (oidc-provider) on loopback, one confidential client, its dev login pages. */
export async function startOidcPeer(redirectUri: string): Promise<OidcPeer> {
  const people = new Map<string, Person>();
  const route: { handler?: ReturnType<Provider['callback']> } = {};
  // oidc-provider's (Koa's) handler answers and reports its own errors: its promise never rejects.
  const server: Server = createServer((req, res) => void route.handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Each person's `inIdToken` says what the ID token holds (what providers do differs), not the
    // provider's default of userinfo only for a code flow.
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async (use) => ({ sub, ...claimsFor(people.get(sub), use) }),
    }),
    features: { devInteractions: { enabled: true } },
    ttl: {
      Interaction: 600,
      Session: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
  });
  route.handler = provider.callback();
  return {
    issuer,
    people,
    authorize: (url, subject) => authorizeAt(url, subject, redirectUri),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function claimsFor(person: Person | undefined, use: string): Partial<Person> {
  if (!person) return {};
  const { inIdToken = [], ...claims } = person;
  if (use !== 'id_token') return claims;
  return Object.fromEntries(inIdToken.map((name) => [name, claims[name]]));
}

/** A browser's cookies at the provider, by name. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function authorizeAt(url: URL, subject: string, redirectUri: string): Promise<URL> {
  const jar = new Jar();
  let next = url.href;
  for (let hop = 0; hop < 12; hop++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    const page = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(page);
    if (page.status >= 300 && page.status < 400) {
      next = new URL(page.headers.get('location')!, next).href;
      continue;
    }
    const html = await page.text();
    const form = new URLSearchParams(
      html.includes('name="login"')
        ? { prompt: 'login', login: subject, password: 'any' }
        : { prompt: 'consent' },
    );
    const posted = await fetch(next, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    jar.take(posted);
    next = new URL(posted.headers.get('location')!, next).href;
  }
  throw new Error('the provider never redirected back');
}
