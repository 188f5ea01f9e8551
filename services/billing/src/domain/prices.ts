import {
  ATOMIC_PER_USD,
  PLANS,
  PLAN_RATE_LIMITS,
  SOLANA_MAINNET,
  USDC_MINT,
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

/** Monthly prices in atomic USDC that the operator publishes; a plan without one shows null. */
export type MonthlyPrices = Partial<Record<PaidPlan, number>>;

const usd = (atomic: number) => atomic / ATOMIC_PER_USD;
const pathOf = (hit: CatalogHit) => `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;

function monthlyPrice(plan: Plan, monthly: MonthlyPrices): number | null {
  return plan === 'free' ? 0 : (monthly[plan] ?? null);
}

/**
 * The price list of GET /v1/billing/prices. Limits, gates and per-call prices come from the
 * contracts the gateway enforces (and the same RATE_LIMITS override), so what this list says is
 * what the edge does.
 */
export function priceList(
  monthly: MonthlyPrices,
  rateLimits: Readonly<Record<Plan, number>> = PLAN_RATE_LIMITS,
): Prices {
  const live = allMetrics().filter((hit) => hit.metric.status === 'live');
  return {
    currency: { symbol: 'USDC', decimals: 6 },
    plans: PLANS.map((plan) => {
      const price = monthlyPrice(plan, monthly);
      return {
        plan,
        rate_limit_per_minute: rateLimits[plan],
        live_metrics: live.filter((hit) => planReaches(plan, hit)).length,
        adds: live.filter((hit) => hit.gate === plan).map(pathOf),
        monthly_price_atomic: price,
        monthly_price_usd: price === null ? null : usd(price),
      };
    }),
    pay_per_call: {
      protocol: 'x402',
      x402_version: X402_VERSION,
      scheme: 'exact',
      network: SOLANA_MAINNET,
      asset: USDC_MINT,
      prices: [
        {
          kind: 'read',
          amount_atomic: X402_PRICES.read,
          usd: usd(X402_PRICES.read),
          applies_to: 'a latest or statistic read of a live metric',
        },
        {
          kind: 'series',
          amount_atomic: X402_PRICES.series,
          usd: usd(X402_PRICES.series),
          applies_to: 'a time-series read: series=true, or any read of a series-shaped metric',
        },
      ],
      series_metrics: live.filter((hit) => hit.metric.value_shape === 'series').map(pathOf),
      manifest: '/.well-known/x402',
    },
  };
}
