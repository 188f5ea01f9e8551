import { z } from 'zod';
import { applyOnce, type ConsumerSpec } from '@meridian/bus';
import { DURABLES, EVENTS, STREAMS, accountCreatedSchema, type CloudEvent } from '@meridian/contracts';
import { recordAccount } from '../db/repositories/accounts.js';
import type { BillingDeps } from '../deps.js';
import { SERVICE } from '../deps.js';

/**
 * Identity announces every account it creates; billing keeps their ids, so that no operator's
 * write and no deposit credits an account that does not exist. Idempotent (applyOnce, and an
 * account recorded before from identity's answer stays as it is).
 */
const createdSchema = accountCreatedSchema.extend({ account_id: z.uuid() });

async function applyAccountCreated(deps: BillingDeps, event: CloudEvent): Promise<void> {
  const parsed = createdSchema.safeParse(event.data);
  if (!parsed.success) {
    deps.logger.warn(
      { event_id: event.id, issues: parsed.error.issues },
      'ignored a malformed account creation',
    );
    return;
  }
  const { account_id, created_at } = parsed.data;
  await deps.db
    .transaction()
    .execute((trx) =>
      applyOnce(trx, SERVICE, DURABLES.billingAccountCreated, event.id, () =>
        recordAccount(trx, { account_id, created_at: new Date(created_at), recorded_at: new Date() }),
      ),
    );
}

export function consumers(deps: BillingDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.identity.name,
      durable: DURABLES.billingAccountCreated,
      filterSubject: EVENTS.identityAccountCreated,
      handler: (event: CloudEvent<never>) => applyAccountCreated(deps, event),
    },
  ];
}
