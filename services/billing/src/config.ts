import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import { SOLANA_MAINNET, USDC_MINTS, planRateLimitsSetting } from '@meridian/contracts';
import type { MonthlyPrices, PaidPlan } from './domain/prices.js';

const PAID_PLANS: readonly PaidPlan[] = ['basic', 'pro', 'ultra'];

/** `basic=29000000,pro=...`: monthly plan prices in atomic USDC; a plan left out has no published price. */
const monthlyPrices = z
  .string()
  .optional()
  .transform((text, ctx): MonthlyPrices => {
    const prices: MonthlyPrices = {};
    for (const pair of text ? text.split(',') : []) {
      const [plan, value] = pair.split('=').map((s) => s.trim());
      const atomic = Number(value);
      if (
        !PAID_PLANS.includes(plan as PaidPlan) ||
        !/^\d+$/.test(value ?? '') ||
        !Number.isSafeInteger(atomic)
      ) {
        ctx.addIssue({ code: 'custom', message: `bad entry "${pair}"; use basic|pro|ultra=<atomic USDC>` });
        return z.NEVER;
      }
      prices[plan as PaidPlan] = atomic;
    }
    return prices;
  });

const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address');

export const configSchema = baseConfigSchema.extend({
  PLAN_MONTHLY_PRICES: monthlyPrices,
  RATE_LIMITS: planRateLimitsSetting,
  /** JSON-RPC endpoint of a Solana node the deposit watcher reads; unset: no watcher. May carry a provider's key: never logged. */
  SOLANA_RPC_URL: z.string().url().optional(),
  /** The wallet deposits are sent to; the watcher reads its associated token account for the network's USDC mint. */
  DEPOSIT_ADDRESS: base58Address.optional(),
  /** CAIP-2 id of the Solana network; it chooses the USDC mint deposits must be in. */
  SOLANA_NETWORK: z
    .string()
    .default(SOLANA_MAINNET)
    .refine((n) => n in USDC_MINTS, { message: `one of ${Object.keys(USDC_MINTS).join(', ')}` }),
  /** How often the deposit watcher asks the node for new transactions, ms. */
  DEPOSIT_POLL_MS: z.coerce.number().int().min(200).max(3_600_000).default(5000),
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, { PORT: '8082', ...env });
}
