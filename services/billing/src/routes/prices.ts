import { Router } from 'express';
import { catalogFor, replayStatement } from '@meridian/contracts';
import { envelope } from '@meridian/http-kit';
import { allPrices } from '../db/repositories/prices.js';
import type { BillingDeps } from '../deps.js';
import { priceList } from '../domain/prices.js';

/** GET /v1/billing/prices (data-api-interface 4.3): public, so the gateway sends an anonymous caller. */
export function priceRoutes(deps: BillingDeps): Router {
  const router = Router();
  const replay = replayStatement(catalogFor(deps.config.INGEST_MODE));
  router.get('/v1/billing/prices', async (_req, res) => {
    // Read from the table every spend charges from, so a price shown is the price charged.
    const prices = priceList(
      await allPrices(deps.db),
      deps.config.RATE_LIMITS,
      deps.config.SOLANA_NETWORK,
      replay,
    );
    res.json(
      envelope(
        prices,
        { confidence: 1 },
        {
          method:
            "Billing's price table (set from PLAN_MONTHLY_PRICES, AUDIT_TIER_PRICES, RUN_PRICES, BOOKING_PRICES and the per-call prices of packages/contracts), the table every spend charges from.",
        },
      ),
    );
  });
  return router;
}
