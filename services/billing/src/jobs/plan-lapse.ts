import { EVENTS, type Plan } from '@meridian/contracts';
import { startPeriodic } from '@meridian/runtime';
import {
  claimLapsed,
  lapsedPlanPeriods,
  markLapseAnnounced,
  periodsFrom,
} from '../db/repositories/subscriptions.js';
import { currentOf } from '../domain/subscription.js';
import type { BillingDeps } from '../deps.js';
import { announce } from '../flows/events.js';

/**
 * When a paid data plan's period ends, the plan that follows is announced: the tier of the
 * period that covers now when it differs (a switch down scheduled for the end of the paid period),
 * or free when none does. Once per period (its lapse mark), in the transaction that marks it.
 */
export async function announceLapsedPlans(deps: BillingDeps, now = new Date()): Promise<number> {
  let announced = 0;
  for (const lapsed of await lapsedPlanPeriods(deps.db, now, 100)) {
    await deps.db.transaction().execute(async (trx) => {
      if (!(await claimLapsed(trx, lapsed.id))) return;
      const covering = currentOf(await periodsFrom(trx, lapsed.account_id, 'data_plan', now), now);
      const next = covering ? covering.period.tier : 'free';
      if (next !== lapsed.tier) {
        await announce(trx, EVENTS.billingPlanChanged, {
          account_id: lapsed.account_id,
          plan: next as Plan,
          changed_at: lapsed.expires_at.toISOString(),
        });
        announced++;
      }
      await markLapseAnnounced(trx, lapsed.id, now);
    });
  }
  return announced;
}

/** Looks for lapsed plans every `everyMs` (a minute by default). */
export function startPlanLapse(deps: BillingDeps, everyMs = 60_000): () => Promise<void> {
  const periodic = startPeriodic(
    async () => {
      await announceLapsedPlans(deps);
    },
    everyMs,
    (err) => deps.logger.error({ err }, 'announcing lapsed plans failed'),
  );
  return () => periodic.stop();
}
