import { LEGACY_ROUTES } from './data-route.js';

/** The services behind the gateway, and the portal edge that serves the web pages. */
export const SERVICES = [
  'identity',
  'billing',
  'analysis',
  'data',
  'x402',
  'requests',
  'mcp',
  'portal',
] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface RouteOwner {
  /** Path prefix, matched on whole segments: `/v1/keys` owns `/v1/keys` and `/v1/keys/abc/revoke`. */
  prefix: string;
  service: ServiceName;
  /** Only this exact path, not the paths below it. */
  exact?: boolean;
}

/**
 * Which service owns each route of the two spec documents. The longest matching prefix wins, so
 * `/v1/account/billing/history` goes to billing while `/v1/account` goes to identity.
 */
export const ROUTE_TABLE: readonly RouteOwner[] = [
  // audit-portal 4.1, 4.2; data-api 5
  { prefix: '/auth', service: 'identity' },
  { prefix: '/v1/account', service: 'identity', exact: true },
  { prefix: '/v1/account/2fa', service: 'identity' },
  { prefix: '/v1/account/nickname', service: 'identity' },
  { prefix: '/v1/account/links', service: 'identity' },
  { prefix: '/v1/account/step-up', service: 'identity', exact: true },
  { prefix: '/v1/agent', service: 'identity' },
  { prefix: '/v1/keys', service: 'identity' },
  // audit-portal 4.4 (subscription), 4.5
  { prefix: '/v1/credits', service: 'billing' },
  { prefix: '/v1/account/billing', service: 'billing' },
  { prefix: '/v1/billing', service: 'billing' },
  { prefix: '/v1/audit/subscribe', service: 'billing' },
  { prefix: '/v1/audit/subscription', service: 'billing' },
  // audit-portal 4.3, 4.4 (authorization)
  { prefix: '/v1/analysis', service: 'analysis' },
  { prefix: '/v1/audit/authorize', service: 'analysis' },
  { prefix: '/v1/audit/authorization', service: 'analysis' },
  // data-api 4.1, 4.3
  { prefix: '/v1/data', service: 'data' },
  { prefix: '/v1/demo', service: 'data' },
  { prefix: '/v1/catalog', service: 'data' },
  // audit-portal 4.6
  { prefix: '/v1/requests', service: 'requests' },
  { prefix: '/v1/consulting', service: 'requests' },
  // The operator console: each service serves the operator routes of what it owns.
  { prefix: '/v1/operator/reviews', service: 'analysis' },
  { prefix: '/v1/operator/requests', service: 'requests' },
  { prefix: '/v1/operator/bookings', service: 'requests' },
  { prefix: '/v1/operator/billing', service: 'billing' },
  { prefix: '/v1/operator/accounts', service: 'identity' },
  // data-api 4.6: the MCP edge (Streamable HTTP), which calls the data API back with the caller's key
  { prefix: '/mcp', service: 'mcp', exact: true },
  // The web portal: its page and its hashed script and style files.
  { prefix: '/', service: 'portal', exact: true },
  { prefix: '/assets', service: 'portal' },
  // data-api 4.1: legacy single-metric routes, when the catalogue names any
  ...Object.keys(LEGACY_ROUTES).map((prefix) => ({ prefix, service: 'data' as const, exact: true })),
];

/** The owner of a path, or undefined when no service owns it. */
export function routeOwner(path: string, table: readonly RouteOwner[] = ROUTE_TABLE): RouteOwner | undefined {
  let best: RouteOwner | undefined;
  for (const route of table) {
    const matches = route.exact
      ? path === route.prefix || path === `${route.prefix}/`
      : path === route.prefix || path.startsWith(`${route.prefix}/`);
    if (matches && (!best || route.prefix.length > best.prefix.length)) best = route;
  }
  return best;
}

/**
 * Who may call a route at the edge:
 * - `data`: a data call (key, x402 challenge, plan gate, rate limit) — handled by edge/data-calls.ts;
 * - `public`: no credential, never priced (data-api-interface 4.3);
 * - `anonymous`: a portal route that works without a session (a valid one is still passed on);
 * - `session_or_key`: a session or an API key (GET /v1/agent/whoami);
 * - `session`: every other portal route; no valid session answers 401.
 */
export type Access = 'data' | 'public' | 'anonymous' | 'session_or_key' | 'session';

/**
 * Public documents of the data API that services answer (the gateway answers the rest itself), the
 * MCP endpoint (no session there, its tools send the caller's key back to the data path), and the
 * portal's page and assets.
 */
export const PUBLIC_ROUTES: readonly string[] = [
  '/v1/demo',
  '/v1/catalog',
  '/v1/billing/prices',
  '/mcp',
  '/',
  '/assets/{id}',
];

/**
 * The portal routes that need no session (audit-portal-interface 4.1, 4.3). Matched on the path
 * whatever the method; the service answers a method it does not serve. `{id}` is one segment.
 */
export const ANONYMOUS_ROUTES: readonly string[] = [
  '/auth/signup',
  '/auth/verify-email',
  '/auth/verify-email/resend',
  '/auth/login',
  '/auth/2fa/verify',
  '/auth/logout',
  '/auth/providers',
  // `idp` of the spec is the provider id; identity serves one route pair per configured provider.
  '/auth/oauth/{id}',
  '/auth/oauth/{id}/callback',
  // The mailed link by which an account's owner consents to a provider link.
  '/auth/oauth/link/confirm',
  '/auth/password/forgot',
  '/auth/password/reset',
  '/auth/unlock',
  '/v1/analysis/shared/{id}',
  '/v1/analysis/shared/{id}/pdf',
];

/** Anonymous, yet it acts on the session it carries. */
export const LOGOUT_PATH = '/auth/logout';
/** Where a session passes the second factor again (identity); operator routes want it recent. */
export const STEP_UP_PATH = '/v1/account/step-up';

export const SESSION_OR_KEY_ROUTES: readonly string[] = ['/v1/agent/whoami'];

function pattern(route: string): RegExp {
  const escaped = route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{id\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

const ANONYMOUS_PATTERNS = ANONYMOUS_ROUTES.map(pattern);
const PUBLIC_PATTERNS = PUBLIC_ROUTES.map(pattern);
const SESSION_OR_KEY_PATTERNS = SESSION_OR_KEY_ROUTES.map(pattern);

/** The access rule of a path that a service owns (data paths are decided before this). */
export function accessOf(path: string): Exclude<Access, 'data'> {
  if (PUBLIC_PATTERNS.some((p) => p.test(path))) return 'public';
  if (ANONYMOUS_PATTERNS.some((p) => p.test(path))) return 'anonymous';
  if (SESSION_OR_KEY_PATTERNS.some((p) => p.test(path))) return 'session_or_key';
  return 'session';
}
