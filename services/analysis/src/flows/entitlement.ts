import {
  AUDIT_TIERS,
  RPC,
  ok,
  upstream,
  type PriceReadReply,
  type Result,
  type Subscription,
  type Upstream,
} from '@meridian/contracts';
import { entitlements, runItem } from '../domain/entitlement.js';
import type { AnalysisDeps } from '../deps.js';

type Entitlement = { subscription: Subscription; tiers: ReturnType<typeof entitlements> };

/** What a run of each tier costs the account now: billing's subscription and price table. */
export async function readEntitlement(
  deps: AnalysisDeps,
  accountId: string,
  now = new Date(),
): Promise<Result<Entitlement, never> | Upstream> {
  const [sub, prices] = await Promise.all([
    deps.bus.request<Subscription>(RPC.billingSubscriptionRead, { account_id: accountId }),
    deps.bus.request<PriceReadReply>(RPC.billingPriceRead, { items: AUDIT_TIERS.map(runItem) }),
  ]);
  if (!sub.ok) return upstream(sub.problem);
  if (!prices.ok) return upstream(prices.problem);
  const table = new Map(prices.data.prices.map((p) => [p.item, p.price_atomic]));
  return ok({ subscription: sub.data, tiers: entitlements(sub.data, table, now) });
}
