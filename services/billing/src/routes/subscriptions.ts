import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { planPurchaseBodySchema, subscribeBodySchema } from '@meridian/contracts';
import { envelope, idempotencyKeyOf, parseInput, sessionAccountOf } from '@meridian/http-kit';
import type { BillingDeps } from '../deps.js';
import { buyPeriod, subscriptionOf } from '../flows/buy-period.js';
import { priceItem } from '../domain/prices.js';
import { valueOf } from './answer.js';

const method = "Billing's subscription periods, each paid by a ledger entry.";

/**
 * POST /v1/audit/subscribe and GET /v1/audit/subscription (portal 4.4); POST and GET
 * /v1/billing/plan, the same for a paid data plan (not in the spec: ours, in the README).
 */
export function subscriptionRoutes(deps: BillingDeps): Router {
  const router = Router();
  router.post('/v1/audit/subscribe', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { tier } = parseInput(subscribeBodySchema, req.body);
    const bought = await buyPeriod(deps, {
      account_id: accountId,
      product: 'audit',
      tier,
      item: priceItem.audit(tier),
      idempotency_key: idempotencyKeyOf(req.get('idempotency-key')) ?? randomUUID(),
      actor: `account:${accountId}`,
    });
    res.json(envelope(valueOf(bought), {}, { method }));
  });
  router.get('/v1/audit/subscription', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.json(envelope(await subscriptionOf(deps.db, accountId, 'audit', new Date()), {}, { method }));
  });
  router.post('/v1/billing/plan', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { plan } = parseInput(planPurchaseBodySchema, req.body);
    const bought = await buyPeriod(deps, {
      account_id: accountId,
      product: 'data_plan',
      tier: plan,
      item: priceItem.plan(plan),
      idempotency_key: idempotencyKeyOf(req.get('idempotency-key')) ?? randomUUID(),
      actor: `account:${accountId}`,
    });
    res.json(envelope(planView(valueOf(bought)), {}, { method }));
  });
  router.get('/v1/billing/plan', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.json(
      envelope(planView(await subscriptionOf(deps.db, accountId, 'data_plan', new Date())), {}, { method }),
    );
  });
  return router;
}

/** A data plan as the plan route shows it: no paid period means the free plan. */
function planView({ tier, ...rest }: Awaited<ReturnType<typeof subscriptionOf>>) {
  return { plan: tier ?? 'free', ...rest };
}
