import { Router } from 'express';
import { envelope } from '@meridian/http-kit';
import type { BillingDeps } from '../deps.js';
import { priceList } from '../domain/prices.js';

/** GET /v1/billing/prices (data-api-interface 4.3): public, so the gateway sends an anonymous caller. */
export function priceRoutes(deps: BillingDeps): Router {
  const router = Router();
  // The list only changes with a deploy or a restart with new PLAN_MONTHLY_PRICES.
  const prices = priceList(deps.config.PLAN_MONTHLY_PRICES, deps.config.RATE_LIMITS);
  router.get('/v1/billing/prices', (_req, res) => {
    res.json(
      envelope(
        prices,
        { confidence: 1 },
        {
          method:
            'Price list of this build: plan limits and x402 prices from packages/contracts, monthly plan prices from PLAN_MONTHLY_PRICES.',
        },
      ),
    );
  });
  return router;
}
