import { z } from 'zod';
import { planSchema } from './caller.js';

/**
 * Billing's request/reply bodies and events (subjects in subjects.ts). Money is atomic USDC;
 * every posting other services ask for is idempotent by order id.
 */

const accountId = z.uuid();
/** Order ids as analysis and requests mint them: a short prefix, a dash and an id (e.g. run-…, booking-…). */
export const orderIdSchema = z.string().regex(/^[a-z]{2,16}-[A-Za-z0-9_-]{6,64}$/, 'prefix-id');
/** What an order buys, as priced in billing's price table (e.g. run:audit_base, booking:consulting). */
export const priceItemSchema = z.string().regex(/^[a-z0-9_]+:[a-z0-9_]+$/, 'kind:name');

/** rpc.billing.credit.spend.v1 — pay an order from credit; a retry with the same order id replays. */
export const creditSpendRequestSchema = z.object({
  account_id: accountId,
  order_id: orderIdSchema,
  item: priceItemSchema,
});
/** rpc.billing.credit.refund.v1 — give back what an order spent (all of it when amount is left out). */
export const creditRefundRequestSchema = z.object({
  account_id: accountId,
  order_id: orderIdSchema,
  amount_atomic: z.number().int().positive().optional(),
  /** Names this refund; a retry with the same key replays it. Default: one full refund per order. */
  idempotency_key: z.string().min(1).max(200).optional(),
  actor: z.string().min(1).max(200),
});
/** rpc.billing.balance.read.v1 */
export const balanceReadRequestSchema = z.object({ account_id: accountId });
/** rpc.billing.order.register.v1 — an order that may be paid directly by an on-chain deposit. */
export const orderRegisterRequestSchema = z.object({
  account_id: accountId,
  order_id: orderIdSchema,
  item: priceItemSchema,
  /** How the order will be paid: by deposit it is refused (503) on a deployment with no deposit address. */
  payment: z.enum(['credit', 'deposit']).default('deposit'),
});
/** rpc.billing.subscription.read.v1 */
export const subscriptionReadRequestSchema = z.object({ account_id: accountId });

export const postingReplySchema = z.object({
  entry_id: z.number().int(),
  amount_atomic: z.number().int(),
  balance_atomic: z.number().int(),
  replayed: z.boolean(),
});
export type PostingReply = z.infer<typeof postingReplySchema>;
export const balanceReplySchema = z.object({ account_id: accountId, balance_atomic: z.number().int() });
export type BalanceReply = z.infer<typeof balanceReplySchema>;
export const orderQuoteSchema = z.object({
  order_id: z.string(),
  amount_atomic: z.number().int(),
  /** Never empty; null only for an order paid from credit on a deployment with no deposit address. */
  deposit_address: z.string().min(1).nullable(),
  memo: z.string(),
  asset: z.string(),
  network: z.string(),
  paid: z.boolean(),
});
export type OrderQuote = z.infer<typeof orderQuoteSchema>;

export const AUDIT_TIERS = ['audit_base', 'audit_secure', 'audit_review'] as const;
export const auditTierSchema = z.enum(AUDIT_TIERS);
export type AuditTier = z.infer<typeof auditTierSchema>;

/** GET /v1/audit/subscription data, and the subscription read's reply. */
export const subscriptionSchema = z.object({
  tier: auditTierSchema.nullable(),
  granted_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  active: z.boolean(),
  /** A switch to a cheaper tier, paid, that takes effect when the current tier expires. */
  scheduled: z.object({ tier: auditTierSchema, starts_at: z.string() }).nullable().optional(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** GET /v1/billing/plan data: the paid data plan bought from credit, if any. */
export const planSubscriptionSchema = z.object({
  plan: planSchema,
  granted_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  active: z.boolean(),
  /** A switch to a cheaper plan, paid, that takes effect when the current plan expires. */
  scheduled: z.object({ tier: planSchema, starts_at: z.string() }).nullable().optional(),
});

/** POST /v1/audit/subscribe body (portal 4.4); a field it does not name is refused, not ignored. */
export const subscribeBodySchema = z.object({ tier: auditTierSchema }).strict();
/** POST /v1/billing/plan body: buy a month of a paid data plan from credit. */
export const planPurchaseBodySchema = z.object({ plan: planSchema.exclude(['free']) }).strict();

/** billing.order.paid.v1 — an order of analysis or requests is paid; it may proceed. */
export const orderPaidSchema = z.object({
  order_id: z.string(),
  account_id: accountId,
  amount_atomic: z.number().int(),
  paid_by: z.enum(['credit', 'deposit']),
  tx_signature: z.string().nullable(),
  paid_at: z.string(),
});

/** rpc.billing.price.read.v1 — the prices of items (e.g. run:audit_base) from billing's price table. */
export const priceReadRequestSchema = z.object({ items: z.array(priceItemSchema).min(1).max(50) });
export const priceReadReplySchema = z.object({
  /** null: no price is set for the item on this deployment. */
  prices: z.array(z.object({ item: z.string(), price_atomic: z.number().int().nonnegative().nullable() })),
});
export type PriceReadReply = z.infer<typeof priceReadReplySchema>;
