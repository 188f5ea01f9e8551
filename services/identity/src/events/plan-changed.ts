import { applyOnce } from '@meridian/bus';
import type { ConsumerSpec } from '@meridian/bus';
import { DURABLES, EVENTS, STREAMS, billingPlanChangedSchema, type CloudEvent } from '@meridian/contracts';
import { findAccountById, setPlan } from '../db/repositories/accounts.js';
import { planChangeApplies } from '../domain/account.js';
import type { IdentityDeps } from '../deps.js';
import { SERVICE } from '../deps.js';
import { announce } from '../flows/events.js';

/**
 * Billing announces the plan an account is entitled to; identity records it and announces the
 * change. Idempotent (applyOnce) and order-safe (an older announcement never overwrites a newer).
 */
export async function applyPlanChanged(deps: IdentityDeps, event: CloudEvent): Promise<void> {
  const parsed = billingPlanChangedSchema.safeParse(event.data);
  if (!parsed.success) {
    deps.logger.warn({ event_id: event.id, issues: parsed.error.issues }, 'ignored a malformed plan change');
    return;
  }
  const { account_id, plan, changed_at } = parsed.data;
  await deps.db.transaction().execute((trx) =>
    applyOnce(trx, SERVICE, DURABLES.identityPlanChanged, event.id, async () => {
      const account = await findAccountById(trx, account_id);
      const changedAt = new Date(changed_at);
      if (!account) return;
      if (!planChangeApplies({ plan: account.plan, changedAt: account.plan_changed_at }, { plan, changedAt }))
        return;
      await setPlan(trx, account_id, plan, changedAt);
      if (account.plan !== plan)
        await announce(trx, EVENTS.identityAccountPlanChanged, {
          account_id,
          plan,
          changed_at: changedAt.toISOString(),
        });
    }),
  );
}

export function consumers(deps: IdentityDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.billing.name,
      durable: DURABLES.identityPlanChanged,
      filterSubject: EVENTS.billingPlanChanged,
      handler: (event: CloudEvent<never>) => applyPlanChanged(deps, event),
    },
  ];
}
