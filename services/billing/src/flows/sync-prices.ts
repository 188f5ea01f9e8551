import { replacePrices } from '../db/repositories/prices.js';
import { priceTableOf } from '../domain/prices.js';
import type { BillingDeps } from '../deps.js';

/** Makes the price table say what this deployment's settings say, once at start. */
export async function syncPrices(deps: BillingDeps): Promise<void> {
  const { config } = deps;
  const table = priceTableOf({
    plans: config.PLAN_MONTHLY_PRICES,
    auditTiers: config.AUDIT_TIER_PRICES,
    runs: config.RUN_PRICES,
    bookings: config.BOOKING_PRICES,
  });
  await deps.db.transaction().execute((trx) => replacePrices(trx, table));
}
