import { Router } from 'express';
import { envelope, sessionAccountOf } from '@meridian/http-kit';
import { depositTarget } from '../flows/topup.js';
import { valueOf } from './answer.js';
import type { BillingDeps } from '../deps.js';

/**
 * Sunset of the retired rail (portal 4.5, 9: the spec names no date; ours, in the README). After it
 * the route keeps answering, so a client still polling it learns where to go rather than a 404.
 */
export const LEGACY_RAIL_SUNSET = new Date('2027-06-30T00:00:00Z');

/** GET /v1/billing/account (deprecated): the legacy rail, whose memo is the bare account id and adds no credit. */
export function legacyAccountRoutes(deps: BillingDeps): Router {
  const router = Router();
  router.get('/v1/billing/account', (req, res) => {
    const accountId = sessionAccountOf(req);
    const { config } = deps;
    const target = valueOf(depositTarget(config, config.LEGACY_DEPOSIT_ADDRESS ?? config.DEPOSIT_ADDRESS));
    res
      .set('Deprecation', '@1790812800')
      .set('Sunset', LEGACY_RAIL_SUNSET.toUTCString())
      .set('Link', '</v1/credits>; rel="successor-version"')
      .json(
        envelope(
          {
            deposit_address: target.deposit_address,
            memo: accountId,
            asset: target.asset,
            network: target.network,
            deprecated: true,
            note: 'Retired rail: a deposit with this memo is recorded but adds no credit and buys no subscription. Top up with GET /v1/credits (memo top-<account_id>).',
          },
          {},
          { method: 'Deployment settings of the retired deposit rail.' },
        ),
      );
  });
  return router;
}
