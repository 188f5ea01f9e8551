import { AUDIT_TIERS, RPC, reportSchema, type AuditTier, type PriceReadReply } from '@meridian/contracts';
import { reviewOverdue } from '../db/repositories/reviews.js';
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

/** One part of a succeeded run given back, under its own refund key (billing refunds each once). */
export interface RefundPart {
  key: 'undelivered' | 'review_overdue';
  amount_atomic: number;
}

/**
 * What a succeeded run gives back, priced with billing's price table (`rpc.billing.price.read.v1`):
 * the part of its price its undelivered stages stand for, and the review's part when the review
 * was not recorded within its promised time; null while billing does not answer.
 */
export async function refundParts(deps: AnalysisDeps, run: RunRow): Promise<RefundPart[] | null> {
  const stages = undeliveredOf(run, run.report);
  const overdue =
    run.tier === 'audit_review' && !stages.includes('review') && (await reviewOverdue(deps.db, run.id));
  if (stages.length === 0 && !overdue) return [];
  const read = await deps.bus.request<PriceReadReply>(RPC.billingPriceRead, {
    items: AUDIT_TIERS.map(runItem),
  });
  if (!read.ok) return null;
  const byItem = new Map(read.data.prices.map((p) => [p.item, p.price_atomic]));
  const prices = new Map(AUDIT_TIERS.map((tier) => [tier, byItem.get(runItem(tier)) ?? null]));
  const undelivered = undeliveredAmount(stages, prices, run.amount_atomic);
  const review = overdue ? undeliveredAmount(['review'], prices, run.amount_atomic - undelivered) : 0;
  const parts: RefundPart[] = [
    { key: 'undelivered', amount_atomic: undelivered },
    { key: 'review_overdue', amount_atomic: review },
  ];
  return parts.filter((p) => p.amount_atomic > 0);
}
