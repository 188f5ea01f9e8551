import {
  AUDIT_TIERS,
  RPC,
  ok,
  type PriceReadReply,
  type Result,
  type Subscription,
} from '@meridian/contracts';
import { entitlements, runItem } from '../domain/entitlement.js';
import type { AnalysisDeps } from '../deps.js';
import { upstream, type Upstream } from './commission-run.js';

/** What a run of each tier costs the account now: billing's subscription and price table. */
export async function readEntitlement(deps: AnalysisDeps, accountId: string, now = new Date()) {
  const [sub, prices] = await Promise.all([
    deps.bus.request<Subscription>(RPC.billingSubscriptionRead, { account_id: accountId }),
    deps.bus.request<PriceReadReply>(RPC.billingPriceRead, { items: AUDIT_TIERS.map(runItem) }),
  ]);
  if (!sub.ok) return upstream(sub.problem);
  if (!prices.ok) return upstream(prices.problem);
  const table = new Map(prices.data.prices.map((p) => [p.item, p.price_atomic]));
  return ok({
    subscription: sub.data,
    tiers: entitlements(sub.data, table, now),
  }) as Result<{ subscription: Subscription; tiers: ReturnType<typeof entitlements> }> | Upstream;
}
