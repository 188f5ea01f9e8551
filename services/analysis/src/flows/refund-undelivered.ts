import { AUDIT_TIERS, RPC, reportSchema, type AuditTier, type PriceReadReply } from '@meridian/contracts';
import type { RunRow } from '../db/repositories/runs.js';
import { undeliveredAmount, undeliveredStages, type StageName } from '../domain/delivery.js';
import { runItem } from '../domain/entitlement.js';
import type { AnalysisDeps } from '../deps.js';

/** The stages of a finished run that delivered nothing (none when it cost nothing). */
export function undeliveredOf(
  run: Pick<RunRow, 'tier' | 'amount_atomic' | 'payment'>,
  report: unknown,
): StageName[] {
  if (run.payment === 'subscription' || run.amount_atomic <= 0) return [];
  const parsed = reportSchema.safeParse(report);
  return parsed.success ? undeliveredStages(run.tier as AuditTier, parsed.data.findings) : [];
}

/**
 * What a succeeded run gives back for the stages that delivered nothing, priced with billing's
 * price table (`rpc.billing.price.read.v1`); null while billing does not answer.
 */
export async function undeliveredRefund(deps: AnalysisDeps, run: RunRow): Promise<number | null> {
  const stages = undeliveredOf(run, run.report);
  if (stages.length === 0) return 0;
  const read = await deps.bus.request<PriceReadReply>(RPC.billingPriceRead, {
    items: AUDIT_TIERS.map(runItem),
  });
  if (!read.ok) return null;
  const byItem = new Map(read.data.prices.map((p) => [p.item, p.price_atomic]));
  const prices = new Map(AUDIT_TIERS.map((tier) => [tier, byItem.get(runItem(tier)) ?? null]));
  return undeliveredAmount(stages, prices, run.amount_atomic);
}
