import {
  ATOMIC_PER_USD,
  AUDIT_TIERS,
  type AuditTier,
  PLANS,
  PLAN_RATE_LIMITS,
  SOLANA_MAINNET,
  USDC_MINTS,
  X402_PRICES,
  X402_VERSION,
  allMetrics,
  planReaches,
  type CatalogHit,
  type Plan,
  type Prices,
} from '@meridian/contracts';

/** The plans that cost money; the free plan needs no card (data-api-interface 5). */
export type PaidPlan = Exclude<Plan, 'free'>;

/**
 * Every price of the platform by item, as the `prices` table holds it: the list below is read
 * from it and every spend charges from it, so a price shown is the price charged.
 */
export type PriceTable = ReadonlyMap<string, number>;

export const priceItem = {
  plan: (plan: PaidPlan) => `plan:${plan}`,
  audit: (tier: AuditTier) => `audit:${tier}`,
  run: (tier: AuditTier) => `run:${tier}`,
  booking: (kind: string) => `booking:${kind}`,
  perCall: (kind: keyof typeof X402_PRICES) => `x402:${kind}`,
};

export interface PriceSettings {
  plans: Record<PaidPlan, number>;
  auditTiers: Record<AuditTier, number>;
  runs: Record<AuditTier, number>;
  bookings: Record<string, number>;
}

/** The table's rows from the deployment's settings and the per-call prices the gateway charges. */
export function priceTableOf(settings: PriceSettings): Map<string, number> {
  const table = new Map<string, number>();
  for (const [plan, atomic] of Object.entries(settings.plans))
    table.set(priceItem.plan(plan as PaidPlan), atomic);
  for (const tier of AUDIT_TIERS) {
    table.set(priceItem.audit(tier), settings.auditTiers[tier]);
    table.set(priceItem.run(tier), settings.runs[tier]);
  }
  for (const [kind, atomic] of Object.entries(settings.bookings)) table.set(priceItem.booking(kind), atomic);
  table.set(priceItem.perCall('read'), X402_PRICES.read);
  table.set(priceItem.perCall('series'), X402_PRICES.series);
  return table;
}

const usd = (atomic: number) => atomic / ATOMIC_PER_USD;
const pathOf = (hit: CatalogHit) => `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;

function monthlyPrice(plan: Plan, table: PriceTable): number | null {
  return plan === 'free' ? 0 : (table.get(priceItem.plan(plan)) ?? null);
}

const priced = (table: PriceTable, item: string) => {
  const atomic = table.get(item) ?? null;
  return { price_atomic: atomic, price_usd: atomic === null ? null : usd(atomic) };
};

/**
 * The price list of GET /v1/billing/prices. Limits, gates and per-call prices come from the
 * contracts the gateway enforces (and the same RATE_LIMITS override), and the network is the
 * deployment's SOLANA_NETWORK that the challenge names too, so what this list says is what the
 * edge does.
 */
export function priceList(
  table: PriceTable,
  rateLimits: Readonly<Record<Plan, number>> = PLAN_RATE_LIMITS,
  network: string = SOLANA_MAINNET,
  replay?: string,
): Prices {
  const perCall = (kind: keyof typeof X402_PRICES) => table.get(priceItem.perCall(kind)) ?? X402_PRICES[kind];
  const live = allMetrics().filter((hit) => hit.metric.status === 'live');
  return {
    currency: { symbol: 'USDC', decimals: 6 },
    plans: PLANS.map((plan) => {
      const price = monthlyPrice(plan, table);
      return {
        plan,
        rate_limit_per_minute: rateLimits[plan],
        live_metrics: live.filter((hit) => planReaches(plan, hit)).length,
        adds: live.filter((hit) => hit.gate === plan).map(pathOf),
        monthly_price_atomic: price,
        monthly_price_usd: price === null ? null : usd(price),
      };
    }),
    audit_subscriptions: AUDIT_TIERS.map((tier) => ({
      tier,
      period: 'month' as const,
      ...priced(table, priceItem.audit(tier)),
    })),
    analysis_runs: AUDIT_TIERS.map((tier) => ({ tier, ...priced(table, priceItem.run(tier)) })),
    consulting: [...table.keys()]
      .filter((item) => item.startsWith('booking:'))
      .map((item) => ({ kind: item.slice('booking:'.length), ...priced(table, item) })),
    pay_per_call: {
      protocol: 'x402',
      x402_version: X402_VERSION,
      scheme: 'exact',
      network,
      asset: USDC_MINTS[network]!,
      prices: [
        {
          kind: 'read',
          amount_atomic: perCall('read'),
          usd: usd(perCall('read')),
          applies_to: 'a latest or statistic read of a live metric',
        },
        {
          kind: 'series',
          amount_atomic: perCall('series'),
          usd: usd(perCall('series')),
          applies_to: 'a time-series read: series=true, or any read of a series-shaped metric',
        },
      ],
      series_metrics: live.filter((hit) => hit.metric.value_shape === 'series').map(pathOf),
      manifest: '/.well-known/x402',
      ...(replay ? { replay } : {}),
    },
  };
}
