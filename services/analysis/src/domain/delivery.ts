import { AUDIT_TIERS, type AuditTier, type Finding } from '@meridian/contracts';

export const PASSIVE_STAGES = [
  'dns',
  'mail',
  'tls',
  'http',
  'headers',
  'cookies',
  'files',
  'content',
] as const;
export type StageName = (typeof PASSIVE_STAGES)[number] | 'active' | 'review';

/**
 * What each tier buys: the passive stages, then active tests (under an authorization), then a
 * human review. A tier buys everything of the tiers below it.
 */
export const TIER_STAGES: Record<AuditTier, readonly StageName[]> = {
  audit_base: PASSIVE_STAGES,
  audit_secure: [...PASSIVE_STAGES, 'active'],
  audit_review: [...PASSIVE_STAGES, 'active', 'review'],
};

/** The lowest tier that buys the stage: the stage is part of what that tier adds to the one below. */
const tierAdding = (stage: StageName): AuditTier => AUDIT_TIERS.find((t) => TIER_STAGES[t].includes(stage))!;

/**
 * The stages of the tier that delivered nothing: no finding of theirs ran (every one is
 * `not_run`, or there is none). A stage with some checks skipped still delivered the others.
 */
export function undeliveredStages(tier: AuditTier, findings: readonly Finding[]): StageName[] {
  return TIER_STAGES[tier].filter(
    (stage) => !findings.some((f) => f.category === stage && f.outcome !== 'not_run'),
  );
}

/**
 * What goes back for stages that delivered nothing: each tier's part is its price less the price
 * of the tier below (the base tier's part is its whole price); every part with an undelivered
 * stage is refunded once, and never more than was paid. A price billing does not have counts as 0.
 */
export function undeliveredAmount(
  undelivered: readonly StageName[],
  prices: ReadonlyMap<AuditTier, number | null>,
  paidAtomic: number,
): number {
  const parts = new Set(undelivered.map(tierAdding));
  let owed = 0;
  for (const tier of parts) {
    const rank = AUDIT_TIERS.indexOf(tier);
    const below = rank > 0 ? (prices.get(AUDIT_TIERS[rank - 1]!) ?? 0) : 0;
    owed += Math.max(0, (prices.get(tier) ?? 0) - below);
  }
  return Math.min(owed, Math.max(0, paidAtomic));
}
