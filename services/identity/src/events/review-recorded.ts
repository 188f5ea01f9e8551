import { applyOnce, type ConsumerSpec } from '@meridian/bus';
import {
  DURABLES,
  EVENTS,
  STREAMS,
  publicReviewer,
  reviewRecordedSchema,
  type CloudEvent,
} from '@meridian/contracts';
import { findAccountById } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { reviewRecordedMail } from '../domain/mail.js';
import type { IdentityDeps } from '../deps.js';
import { SERVICE } from '../deps.js';

/**
 * An operator recorded the human review of a run (analysis announces it): identity, which holds
 * the address, mails the run's owner once (applyOnce) through the mail outbox. The mail names the
 * reviewer by nickname or "a Meridian reviewer", also for an event that still carries an address.
 */
export async function applyReviewRecorded(deps: IdentityDeps, event: CloudEvent): Promise<void> {
  const parsed = reviewRecordedSchema.safeParse(event.data);
  if (!parsed.success) {
    deps.logger.warn({ event_id: event.id, issues: parsed.error.issues }, 'ignored a malformed review event');
    return;
  }
  const queued = await deps.db.transaction().execute((trx) =>
    applyOnce(trx, SERVICE, DURABLES.identityReviewRecorded, event.id, async () => {
      const account = await findAccountById(trx, parsed.data.account_id);
      if (!account?.email) return;
      const review = { ...parsed.data, author: publicReviewer(parsed.data.author) };
      await insertMail(trx, reviewRecordedMail(account.email, deps.config.PUBLIC_BASE_URL, review));
    }),
  );
  if (queued) deps.mail.kick();
}

export function reviewConsumers(deps: IdentityDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.analysis.name,
      durable: DURABLES.identityReviewRecorded,
      filterSubject: EVENTS.analysisReviewRecorded,
      handler: (event: CloudEvent<never>) => applyReviewRecorded(deps, event),
    },
  ];
}
