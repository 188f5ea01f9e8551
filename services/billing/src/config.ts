import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import { planRateLimitsSetting } from '@meridian/contracts';
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

export const configSchema = baseConfigSchema.extend({
  PLAN_MONTHLY_PRICES: monthlyPrices,
  RATE_LIMITS: planRateLimitsSetting,
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, { PORT: '8082', ...env });
}
