import type { z } from 'zod';
import {
  analysisCredentialBodySchema,
  analysisCredentialIdQuerySchema,
  analysisCredentialsQuerySchema,
  analysisDomainBodySchema,
  analysisDomainQuerySchema,
  analysisRunBodySchema,
  auditAuthorizeBodySchema,
  autoRescanBodySchema,
  billingHistoryQuerySchema,
  bookingBodySchema,
  bookingSchema,
  billingHistoryRowSchema,
  creditsAnswerSchema,
  creditsQuerySchema,
  planPurchaseBodySchema,
  planSubscriptionSchema,
  serviceRequestAnswerSchema,
  serviceRequestSchema,
  slotSchema,
  slotsQuerySchema,
  subscribeBodySchema,
  subscriptionSchema,
} from '@meridian/contracts';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** What the portal document says of one route, beyond its method, path and purpose. */
export interface PortalRouteDetail {
  /** The success status when it is not 200 (201 created, 202 accepted, 302 redirect). */
  status?: number;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The answer: a plain body, or the `data` of the envelope. */
  answer?: { schema: z.ZodType; plain: boolean };
  /** Problem statuses the route declares besides 401 (audit-portal-interface 7), and when. */
  errors?: Record<number, string>;
  deprecated?: boolean;
}

export interface PortalRoute extends PortalRouteDetail {
  method: HttpMethod;
  path: string;
  summary: string;
}

const route = (method: HttpMethod, path: string, summary: string, detail: PortalRouteDetail = {}) => ({
  method,
  path,
  summary,
  ...detail,
});

/** Every route of audit-portal-interface 4, for the OpenAPI document. */
export const PORTAL_ROUTES: readonly PortalRoute[] = [
  route('post', '/auth/signup', 'Create an account; email confirmation required before sign-in', {
    status: 202,
  }),
  route('post', '/auth/verify-email', 'Confirm an email address from the mailed link'),
  route('post', '/auth/verify-email/resend', 'Resend the confirmation email', { status: 202 }),
  route('post', '/auth/login', 'Sign in with email and password; may answer a TOTP challenge'),
  route('post', '/auth/2fa/verify', 'Answer a TOTP challenge issued by login'),
  route('post', '/auth/logout', 'End the session'),
  route('get', '/auth/providers', 'Configured sign-in providers'),
  route('get', '/auth/oauth/idp', 'Begin sign-in through an identity provider', { status: 302 }),
  route('get', '/auth/oauth/idp/callback', 'Return leg of the identity-provider sign-in', { status: 302 }),
  route('post', '/auth/password/forgot', 'Start a password reset', { status: 202 }),
  route('post', '/auth/password/reset', 'Finish a password reset'),
  route('post', '/auth/unlock', 'Let this browser past the sign-in backoff with its mailed unlock link'),
  route(
    'post',
    '/auth/oauth/link/confirm',
    "Link a provider identity with the mailed consent of the account's owner",
  ),
  route('get', '/v1/account', 'The signed-in account: email, plan, entitlements, keys, provider links'),
  route('get', '/v1/account/2fa', 'Second-factor status'),
  route('post', '/v1/account/2fa/enrol', 'Begin TOTP enrolment'),
  route('post', '/v1/account/2fa/activate', 'Activate TOTP with a first code'),
  route('post', '/v1/account/2fa/disable', 'Disable TOTP'),
  route('post', '/v1/account/2fa/{id}', 'Second-factor operation by id'),
  route('post', '/v1/account/step-up', "Confirm this session's second factor with a current TOTP code", {
    errors: { 403: 'The code is wrong, expired or already used', 409: 'TOTP is not active' },
  }),
  route('put', '/v1/account/nickname', 'Set the public nickname'),
  route('delete', '/v1/account/links/{id}', 'Unlink a sign-in provider listed in GET /v1/account'),
  route('get', '/v1/agent/whoami', 'Agent-auth introspection (session or API key)'),
  route('post', '/v1/keys', 'Create an API key (shown once)', { status: 201 }),
  route('post', '/v1/keys/{id}/revoke', 'Revoke an API key'),
  route('get', '/v1/analysis/domains', "List the account's domains"),
  route('post', '/v1/analysis/domains', 'Add a domain for verification', {
    status: 201,
    body: analysisDomainBodySchema,
    errors: { 400: 'Not a bare hostname (scheme, port, path, IP address...)' },
  }),
  route('get', '/v1/analysis/verify', 'Check DNS TXT ownership verification', {
    query: analysisDomainQuerySchema,
    errors: { 404: 'Not a domain of this account', 503: 'The DNS resolvers did not answer' },
  }),
  route('get', '/v1/analysis/dns-provider', 'Detect the DNS provider', {
    query: analysisDomainQuerySchema,
    errors: { 404: 'Not a domain of this account', 503: 'The DNS resolvers did not answer' },
  }),
  route('get', '/v1/analysis/entitlement', 'What a run of each tier costs this account now'),
  route('post', '/v1/analysis/run', 'Commission an analysis run (Idempotency-Key honoured)', {
    status: 201,
    body: analysisRunBodySchema,
    errors: {
      400: 'The domain is not verified (or its TXT record is gone), or a malformed body',
      402: 'Insufficient credit',
      403: 'An active tier without an active authorization',
      404: 'Not a domain of this account',
      409: 'The Idempotency-Key named another run',
    },
  }),
  route('get', '/v1/analysis/reports', 'Runs and their status for a domain', {
    query: analysisDomainQuerySchema,
    errors: { 404: 'Not a domain of this account' },
  }),
  route('get', '/v1/analysis/report/{id}', 'Finished report body (owner-gated)'),
  route('get', '/v1/analysis/report/{id}/pdf', 'Report PDF (owner-gated)'),
  route('get', '/v1/analysis/report/{id}/trace', 'Live pipeline trace'),
  route('post', '/v1/analysis/report/{id}/share', 'Mint the share link'),
  route('delete', '/v1/analysis/report/{id}/share', 'Revoke the share link'),
  route('get', '/v1/analysis/shared/{id}', 'Shared report body; the share token is the credential'),
  route('get', '/v1/analysis/shared/{id}/pdf', 'Shared report PDF'),
  route('post', '/v1/analysis/auto-rescan', 'Toggle the weekly automatic re-scan', {
    body: autoRescanBodySchema,
    errors: { 400: 'The domain is not verified, or a malformed body', 404: 'Not a domain of this account' },
  }),
  route('get', '/v1/analysis/credentials', 'Sign-in credentials for authenticated audits', {
    query: analysisCredentialsQuerySchema,
    errors: { 404: 'Not a domain of this account' },
  }),
  route('post', '/v1/analysis/credentials', 'Store a sign-in credential (its secret is never answered)', {
    status: 201,
    body: analysisCredentialBodySchema,
    errors: { 404: 'Not a domain of this account', 409: 'The domain holds 20 credentials already' },
  }),
  route('delete', '/v1/analysis/credentials', 'Delete a sign-in credential', {
    status: 204,
    query: analysisCredentialIdQuerySchema,
    errors: { 404: 'No credential of this account has this id' },
  }),
  route('post', '/v1/audit/authorize', 'Authorize active testing of a verified domain', {
    status: 201,
    body: auditAuthorizeBodySchema,
    errors: {
      400: 'The domain is not verified, or the ownership attestation is missing',
      404: 'Not a domain of this account',
    },
  }),
  route('get', '/v1/audit/authorization', 'The active-testing authorization, if any', {
    query: analysisDomainQuerySchema,
    errors: { 404: 'Not a domain of this account' },
  }),
  route('post', '/v1/audit/authorization/revoke', 'Revoke the active-testing authorization', {
    body: analysisDomainBodySchema,
    errors: { 404: 'No authorization is active' },
  }),
  route(
    'post',
    '/v1/audit/subscribe',
    'Buy a monthly audit subscription from credit (Idempotency-Key honoured)',
    {
      body: subscribeBodySchema,
      answer: { schema: subscriptionSchema, plain: false },
      errors: {
        400: 'Unknown tier or plan, or a malformed body',
        402: 'Insufficient credit',
        409: 'Twelve months are already paid ahead, a switch while months are paid ahead, or the Idempotency-Key bought another tier',
      },
    },
  ),
  route('get', '/v1/audit/subscription', 'Current subscription', {
    answer: { schema: subscriptionSchema, plain: false },
  }),
  route('get', '/v1/credits', 'Credit balance, ledger page and top-up instructions', {
    query: creditsQuerySchema,
    answer: { schema: creditsAnswerSchema, plain: true },
    errors: { 400: 'Invalid limit or before' },
  }),
  route('get', '/v1/account/billing/history', 'Billing history, newest first', {
    query: billingHistoryQuerySchema,
    answer: { schema: billingHistoryRowSchema.array(), plain: false },
    errors: { 400: 'Invalid limit, max_response_tokens or cursor' },
  }),
  route('get', '/v1/billing/account', 'Legacy deposit rail; use GET /v1/credits for topping up', {
    deprecated: true,
  }),
  route(
    'post',
    '/v1/billing/plan',
    'Buy a month of a paid data plan (basic, pro, ultra) from credit (Idempotency-Key honoured)',
    {
      body: planPurchaseBodySchema,
      answer: { schema: planSubscriptionSchema, plain: false },
      errors: {
        400: 'Unknown tier or plan, or a malformed body',
        402: 'Insufficient credit',
        409: 'Twelve months are already paid ahead, a switch while months are paid ahead, or the Idempotency-Key bought another tier',
      },
    },
  ),
  route('get', '/v1/billing/plan', 'The data plan bought from credit, and its expiry', {
    answer: { schema: planSubscriptionSchema, plain: false },
  }),
  route('get', '/v1/consulting/bookings', "The account's consulting bookings, latest start first", {
    answer: { schema: bookingSchema.array(), plain: false },
  }),
  route(
    'post',
    '/v1/consulting/bookings',
    'Book a consulting slot, paid from credit or by a deposit (Idempotency-Key honoured)',
    {
      status: 201,
      body: bookingBodySchema,
      answer: { schema: bookingSchema, plain: false },
      errors: {
        400: 'Not the start of a slot, too soon or too far ahead, or a malformed body',
        402: 'Insufficient credit',
        409: 'The slot is taken, or the Idempotency-Key named another booking',
      },
    },
  ),
  route('get', '/v1/consulting/slots', 'Consulting slots in a window (UTC), each available or booked', {
    query: slotsQuerySchema,
    answer: { schema: slotSchema.array(), plain: false },
    errors: { 400: 'A malformed time, to before from, or a window over 31 days' },
  }),
  route('post', '/v1/requests', 'Record a service request; it starts no scan', {
    body: serviceRequestSchema,
    answer: { schema: serviceRequestAnswerSchema, plain: true },
    errors: { 400: 'Unknown kind or malformed body' },
  }),
];
