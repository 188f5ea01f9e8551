import { z } from 'zod';

/**
 * Inputs and answers the audit-portal document specifies field by field (sections 2.1-2.4, 4.5,
 * 4.6, 8). The services that own these routes parse with them; the gateway's OpenAPI document is
 * generated from them.
 */

/** GET /v1/credits query (portal 4.5, 8). */
export const creditsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('Ledger rows per page'),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Entries with id less than this; pass the previous answer's next_before"),
});

/** GET /v1/account/billing/history query (portal 4.5, 8); out of range answers 400. */
export const billingHistoryQuerySchema = z.object({
  cursor: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe("Opaque cursor from the previous answer's meta.next_cursor"),
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('Rows per page'),
  max_response_tokens: z.coerce
    .number()
    .int()
    .min(500)
    .max(16_000)
    .default(4000)
    .describe('Token budget; whole tail rows are dropped to fit'),
});

/**
 * Reasons of a ledger entry. The first six are portal 2.2's; the billing history (2.1) also lists
 * subscription spends, and data plans and consulting bookings are bought from credit too, which
 * that list has no word for: each has a reason of its own rather than hiding under `report`.
 */
export const LEDGER_REASONS = [
  'report',
  'topup_usdc',
  'topup_manual',
  'admin_grant',
  'admin_revoke',
  'refund',
  'subscription',
  'data_plan',
  'booking',
] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

/** Element of `entries` in GET /v1/credits (portal 2.2). */
export const creditLedgerEntrySchema = z.object({
  id: z.number().int().describe('Monotonic ledger id; also the pagination cursor'),
  created_at: z.string().describe('ISO 8601 date-time'),
  delta_atomic: z.number().int().describe('Signed movement; negative is a debit'),
  direction: z.enum(['credit', 'debit']),
  reason: z.enum(LEDGER_REASONS),
  ref: z.string().nullable(),
  actor: z.string(),
});

/** GET /v1/credits answer, a plain body (portal 2.3). */
export const creditsAnswerSchema = z.object({
  balance_atomic: z.number().int().describe('Running total over the whole ledger, not the page'),
  balance_usd: z.number().describe('Display convenience only'),
  entries: z.array(creditLedgerEntrySchema).describe('Newest first'),
  next_before: z.number().int().nullable().describe('Cursor of the next page; null on the last page'),
  topup: z.object({
    deposit_address: z.string(),
    memo: z.string().describe('Exactly top-<account_id>; no other memo adds credit'),
    asset: z.string(),
    network: z.string(),
  }),
});

/** Element of data in GET /v1/account/billing/history (portal 2.1). */
export const billingHistoryRowSchema = z.object({
  id: z.string().regex(/^(ledger|payment):\d+$/),
  kind: z.enum(['ledger', 'payment']),
  at: z.string().describe('ISO 8601 date-time'),
  reason: z.string().describe('A ledger reason, or report_payment / booking_payment for a direct deposit'),
  direction: z.enum(['credit', 'debit', 'payment']),
  amount_atomic: z.number().int().min(0).describe('Money moved, always positive'),
  balance_delta_atomic: z.number().int().describe('Signed effect on the balance; 0 for a direct payment'),
  ref: z.string().nullable().describe("The caller's own order id, when there is one"),
  tx_signature: z.string().nullable().describe('On-chain transaction signature, bare'),
});

export const SERVICE_REQUEST_KINDS = ['pentest', 'pentest_discussion', 'consultancy'] as const;

/** POST /v1/requests body (portal 2.4). The detail bound is ours: the spec sets none. */
export const serviceRequestSchema = z.object({
  kind: z.enum(SERVICE_REQUEST_KINDS),
  domain: z
    .string()
    .max(300)
    .optional()
    .describe(
      'Bare hostname the request concerns, normalised as a domain is (ACME.test. is acme.test); omitted or empty for consultancy',
    ),
  detail: z.string().max(4000).optional().describe('Free-text note or topic'),
});

/** POST /v1/requests answer, a plain body (portal 2.4). */
export const serviceRequestAnswerSchema = z.object({
  ok: z.boolean(),
  count: z.number().int().min(1).describe('How many times this (account, domain, kind) was requested'),
});
