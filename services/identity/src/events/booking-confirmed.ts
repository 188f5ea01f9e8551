import { applyOnce, type ConsumerSpec } from '@meridian/bus';
import { DURABLES, EVENTS, STREAMS, bookingConfirmedSchema, type CloudEvent } from '@meridian/contracts';
import { findAccountById } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { bookingConfirmedMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { SERVICE } from '../deps.js';

/**
 * The requests service confirmed a consulting booking: identity, which holds the address, mails
 * the account once (applyOnce), through the same mail outbox as every other mail.
 */
export async function applyBookingConfirmed(deps: IdentityDeps, event: CloudEvent): Promise<void> {
  const parsed = bookingConfirmedSchema.safeParse(event.data);
  if (!parsed.success) {
    deps.logger.warn(
      { event_id: event.id, issues: parsed.error.issues },
      'ignored a malformed booking confirmation',
    );
    return;
  }
  const queued = await deps.db.transaction().execute((trx) =>
    applyOnce(trx, SERVICE, DURABLES.identityBookingConfirmed, event.id, async () => {
      const account = await findAccountById(trx, parsed.data.account_id);
      if (!account?.email) return;
      await insertMail(trx, bookingConfirmedMail(account.email, deps.config.PUBLIC_BASE_URL, parsed.data));
    }),
  );
  if (queued) deps.mail.kick();
}

export function bookingConsumers(deps: IdentityDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.requests.name,
      durable: DURABLES.identityBookingConfirmed,
      filterSubject: EVENTS.requestsBookingConfirmed,
      handler: (event: CloudEvent<never>) => applyBookingConfirmed(deps, event),
    },
  ];
}
