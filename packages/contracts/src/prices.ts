import { z } from 'zod';
import { auditTierSchema } from './billing.js';
import { planSchema } from './caller.js';
import { X402_VERSION } from './x402.js';

/**
 * GET /v1/billing/prices (data-api-interface 4.3, 8, 4.4). Money in atomic units of USDC, 6
 * decimals (1000000 atomic = 1 USD), as everywhere in the portal; `*_usd` is display only.
 */
export const planPriceSchema = z.object({
  plan: planSchema,
  rate_limit_per_minute: z.number().int().positive(),
  /** Live metrics a key on this plan may read (its own and every lower plan's). */
  live_metrics: z.number().int().nonnegative(),
  /** category/product/metric of every live metric whose gate is this plan. */
  adds: z.array(z.string()),
  /** null: no price is published for this plan on this deployment. */
  monthly_price_atomic: z.number().int().nonnegative().nullable(),
  monthly_price_usd: z.number().nonnegative().nullable(),
});

export const perCallPriceSchema = z.object({
  kind: z.enum(['read', 'series']),
  amount_atomic: z.number().int().positive(),
  usd: z.number().positive(),
  applies_to: z.string(),
});

const itemPrice = {
  /** null: no price is set for this item on this deployment; it cannot be bought. */
  price_atomic: z.number().int().nonnegative().nullable(),
  price_usd: z.number().nonnegative().nullable(),
};

export const pricesSchema = z.object({
  currency: z.object({ symbol: z.literal('USDC'), decimals: z.literal(6) }),
  plans: z.array(planPriceSchema),
  /** Monthly audit subscriptions (portal 4.4), bought from credit. */
  audit_subscriptions: z.array(z.object({ tier: auditTierSchema, period: z.literal('month'), ...itemPrice })),
  /** One analysis run of each tier, from credit or by direct on-chain payment. */
  analysis_runs: z.array(z.object({ tier: auditTierSchema, ...itemPrice })),
  /** Consulting bookings, by kind. */
  consulting: z.array(z.object({ kind: z.string(), ...itemPrice })),
  pay_per_call: z.object({
    protocol: z.literal('x402'),
    x402_version: z.literal(X402_VERSION),
    scheme: z.literal('exact'),
    network: z.string(),
    asset: z.string(),
    prices: z.array(perCallPriceSchema),
    /** category/product/metric of the live metrics that only answer series: every read is a series read. */
    series_metrics: z.array(z.string()),
    manifest: z.string(),
    /** Present when the data service replays recordings (INGEST_MODE=replay): what it plays, said before payment. */
    replay: z.string().optional(),
  }),
});
export type Prices = z.infer<typeof pricesSchema>;

/** Atomic units of USDC in one US dollar. */
export const ATOMIC_PER_USD = 1_000_000;
