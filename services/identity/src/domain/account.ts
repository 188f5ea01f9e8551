import type { Plan } from '@meridian/contracts';
import { PLAN_KEY_CAPS, PLAN_RATE_LIMITS, PLANS } from '@meridian/contracts';
import { z } from 'zod';

/** Email addresses compare case-insensitively: stored trimmed and lower-cased. */
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .email()
  .transform((e) => e.toLowerCase());

/** Public nickname: 3..32 of letters, digits, `_`, `-`, `.`; unique regardless of case. */
export const nicknameSchema = z
  .string()
  .trim()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - and starting with a letter or digit');

export interface Entitlements {
  plan: Plan;
  /** Every plan whose metrics this account may read (its own and the ones below). */
  metric_plans: Plan[];
  /** Per API key (the spec); the gateway also caps the account's keys together (README). */
  rate_limit_per_minute: number;
  /** Live API keys the account may hold at once. */
  max_live_keys: number;
}

export function entitlementsOf(
  plan: Plan,
  rateLimits: Readonly<Record<Plan, number>> = PLAN_RATE_LIMITS,
  keyCaps: Readonly<Record<Plan, number>> = PLAN_KEY_CAPS,
): Entitlements {
  return {
    plan,
    metric_plans: PLANS.slice(0, PLANS.indexOf(plan) + 1),
    rate_limit_per_minute: rateLimits[plan],
    max_live_keys: keyCaps[plan],
  };
}

/** Billing's announcements may arrive out of order: only a newer one changes the plan. */
export function planChangeApplies(
  current: { plan: Plan; changedAt: Date | null },
  next: { plan: Plan; changedAt: Date },
): boolean {
  if (current.changedAt && next.changedAt <= current.changedAt) return false;
  return true;
}
