import { createHmac } from 'node:crypto';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import {
  AUDIT_TIERS,
  INGEST_MODES,
  SOLANA_MAINNET,
  USDC_MINTS,
  planRateLimitsSetting,
} from '@meridian/contracts';

/**
 * `name=<atomic>,...`: prices in atomic USDC for the names given; names left out keep their
 * default, and a name outside `names` or an amount that is not a whole number stops the start.
 */
function priceSetting<N extends string>(names: readonly N[], defaults: Record<N, number>) {
  return z
    .string()
    .optional()
    .transform((text, ctx): Record<N, number> => {
      const prices = { ...defaults };
      for (const pair of text ? text.split(',') : []) {
        const [name, value] = pair.split('=').map((s) => s.trim());
        const atomic = Number(value);
        if (!names.includes(name as N) || !/^\d+$/.test(value ?? '') || !Number.isSafeInteger(atomic)) {
          ctx.addIssue({
            code: 'custom',
            message: `bad entry "${pair}"; use ${names.join('|')}=<atomic USDC>`,
          });
          return z.NEVER;
        }
        prices[name as N] = atomic;
      }
      return prices;
    });
}

const usd = (dollars: number) => dollars * 1_000_000;
const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address');

export const configSchema = baseConfigSchema
  .extend({
    /** Monthly prices of the paid data plans (not in the spec: ours, documented in the README). */
    PLAN_MONTHLY_PRICES: priceSetting(['basic', 'pro', 'ultra'], {
      basic: usd(19),
      pro: usd(49),
      ultra: usd(199),
    }),
    /** Monthly prices of the audit subscription tiers. */
    AUDIT_TIER_PRICES: priceSetting(AUDIT_TIERS, {
      audit_base: usd(49),
      audit_secure: usd(149),
      audit_review: usd(399),
    }),
    /** Price of one analysis run of each tier, paid from credit or by direct deposit. */
    RUN_PRICES: priceSetting(AUDIT_TIERS, {
      audit_base: usd(9),
      audit_secure: usd(29),
      audit_review: usd(99),
    }),
    /** Price of a consulting booking (one session). */
    BOOKING_PRICES: priceSetting(['consulting'], { consulting: usd(150) }),
    RATE_LIMITS: planRateLimitsSetting,
    /** The wallet deposits are sent to; unset: on-chain top-ups are off and the address reads "". */
    DEPOSIT_ADDRESS: base58Address.optional(),
    /** The deposit wallet of the retired subscription rail (GET /v1/billing/account); default DEPOSIT_ADDRESS. */
    LEGACY_DEPOSIT_ADDRESS: base58Address.optional(),
    SOLANA_NETWORK: z
      .string()
      .default(SOLANA_MAINNET)
      .refine((n) => n in USDC_MINTS, { message: `one of ${Object.keys(USDC_MINTS).join(', ')}` }),
    /** JSON-RPC endpoint of a Solana node the deposit watcher reads; unset: no watcher. May carry a provider's key: never logged. */
    SOLANA_RPC_URL: z.string().url().optional(),
    /** How often the deposit watcher asks the node for new transactions, ms. */
    DEPOSIT_POLL_MS: z.coerce.number().int().min(200).max(3_600_000).default(5000),
    /** HMAC key of the billing history's cursors; unset: derived from INTERNAL_AUTH_SECRET. */
    BILLING_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** The data service's INGEST_MODE (same default): under replay the price list says what replay plays. */
    INGEST_MODE: z.enum(INGEST_MODES).default('replay'),
  })
  .transform((c) => ({
    ...c,
    cursorKey:
      c.BILLING_CURSOR_SECRET ??
      createHmac('sha256', c.INTERNAL_AUTH_SECRET).update('meridian billing cursor v1').digest('hex'),
  }));

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8082' });
}
