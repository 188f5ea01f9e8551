import { z } from 'zod';

export const PLANS = ['free', 'basic', 'pro', 'ultra'] as const;
export const planSchema = z.enum(PLANS);
export type Plan = z.infer<typeof planSchema>;

/**
 * Requests per minute per API key, by plan (data-api-interface 8). One constant, so the gateway's
 * buckets and billing's price list cannot disagree.
 */
export const PLAN_RATE_LIMITS: Readonly<Record<Plan, number>> = {
  free: 10,
  basic: 60,
  pro: 300,
  ultra: 1200,
};

/** How the gateway authenticated the caller it vouches for. */
export const authMethodSchema = z.enum(['session', 'api_key', 'x402', 'anonymous']);

/**
 * The caller as the gateway verified it, carried to services in a signed internal assertion.
 * Services trust nothing else about who is calling.
 */
export const callerSchema = z.object({
  account_id: z.string().nullable(),
  plan: planSchema.nullable(),
  auth: authMethodSchema,
  key_id: z.string().nullable(),
  session_id: z.string().nullable(),
});
export type Caller = z.infer<typeof callerSchema>;

export const INTERNAL_ASSERTION_HEADER = 'x-internal-assertion';
