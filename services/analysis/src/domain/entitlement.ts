import { AUDIT_TIERS, type AuditTier, type Subscription } from '@meridian/contracts';

/** audit_base < audit_secure < audit_review. */
export function tierRank(tier: AuditTier): number {
  return AUDIT_TIERS.indexOf(tier);
}

/** An active subscription of tier T covers runs of T and every lower tier, at no charge. */
export function covers(subscription: Subscription | null, tier: AuditTier, now: Date): boolean {
  if (!subscription?.active || !subscription.tier) return false;
  if (subscription.expires_at && Date.parse(subscription.expires_at) <= now.getTime()) return false;
  return tierRank(subscription.tier) >= tierRank(tier);
}

export const runItem = (tier: AuditTier) => `run:${tier}`;

export interface TierEntitlement {
  tier: AuditTier;
  /** Billing's price of one run of the tier; null when none is set (the tier cannot be bought). */
  price_atomic: number | null;
  covered_by_subscription: boolean;
  /** What a run costs this account now: 0 when covered. */
  charge_atomic: number | null;
  /** Whether the tier needs an active-testing authorization of the domain. */
  requires_authorization: boolean;
}

export function entitlements(
  subscription: Subscription | null,
  prices: Map<string, number | null>,
  now: Date,
): TierEntitlement[] {
  return AUDIT_TIERS.map((tier) => {
    const covered = covers(subscription, tier, now);
    const price = prices.get(runItem(tier)) ?? null;
    return {
      tier,
      price_atomic: price,
      covered_by_subscription: covered,
      charge_atomic: covered ? 0 : price,
      requires_authorization: tier !== 'audit_base',
    };
  });
}
