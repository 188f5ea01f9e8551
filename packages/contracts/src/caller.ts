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

/**
 * The `RATE_LIMITS` setting: `free=10,basic=60,...` replaces some of the spec's per-minute limits
 * (benchmarks, staging). The gateway, identity's entitlements and billing's price list all read
 * it, so what is published is what the edge enforces.
 */
export const planRateLimitsSetting = planTable(PLAN_RATE_LIMITS, 'requests_per_minute');

/** A per-plan setting `plan=n,...` over its defaults (n a positive integer). */
function planTable(defaults: Readonly<Record<Plan, number>>, unit: string) {
  return z
    .string()
    .optional()
    .transform((text, ctx): Record<Plan, number> => {
      const table = { ...defaults };
      for (const pair of text ? text.split(',') : []) {
        const [plan, value] = pair.split('=').map((s) => s.trim());
        const n = Number(value);
        if (!PLANS.includes(plan as Plan) || !Number.isInteger(n) || n < 1) {
          ctx.addIssue({ code: 'custom', message: `bad entry "${pair}"; use plan=${unit}` });
          return z.NEVER;
        }
        table[plan as Plan] = n;
      }
      return table;
    });
}

/**
 * Live API keys one account may hold at once, by plan: rate limits are per key (the
 * spec), so the number of keys bounds what an account can draw; the account-wide ceiling of the
 * gateway (ACCOUNT_RATE_MULTIPLE) bounds it whatever the keys.
 */
export const PLAN_KEY_CAPS: Readonly<Record<Plan, number>> = {
  free: 2,
  basic: 5,
  pro: 10,
  ultra: 20,
};

/** The `KEY_CAPS` setting, `free=2,basic=5,...`, replacing some of PLAN_KEY_CAPS. */
export const planKeyCapsSetting = planTable(PLAN_KEY_CAPS, 'live_keys');

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
  /** A session of an account holding the operator role (identity grants it by command). */
  role: z.enum(['operator']).optional(),
  /** Whether that session's account has TOTP active; operator routes need both. */
  totp_active: z.boolean().optional(),
  /**
   * When that session last passed the second factor (ISO 8601), null when it never did: operator
   * routes want it recent (a step-up), not merely TOTP active on the account.
   */
  second_factor_at: z.iso.datetime().nullable().optional(),
});
export type Caller = z.infer<typeof callerSchema>;

export const INTERNAL_ASSERTION_HEADER = 'x-internal-assertion';
/** An edge of ours calling the gateway (the MCP server) names its own client's address in it, signed. */
export const CLIENT_ADDRESS_HEADER = 'x-client-address-assertion';
