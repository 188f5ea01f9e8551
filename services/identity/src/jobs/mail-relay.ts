import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '@meridian/observability';
import type { MailTransport } from '../adapters/smtp.js';
import type { Database } from '../db/database.js';
import {
  claimDueMail,
  markMailFailed,
  markMailSent,
  renewMailLease,
  type QueuedMail,
} from '../db/repositories/mail-outbox.js';

/** Lets a route wake the relay after its transaction commits, instead of waiting for the next tick. */
export class MailSignal {
  private listener: (() => void) | undefined;
  on(listener: () => void): void {
    this.listener = listener;
  }
  kick(): void {
    this.listener?.();
  }
}

export interface MailRelayOptions {
  db: Kysely<Database>;
  logger: Logger;
  /** SMTP, or (all-in-one) the files of MAIL_DIR. */
  transport: MailTransport;
  signal: MailSignal;
  intervalMs?: number;
}

const MAX_ATTEMPTS = 10;
const BATCH = 20;
/**
 * How long a relay owns a mail it claimed. Renewed before each send, so it only has to outlast one
 * delivery, which the SMTP timeouts bound well within it.
 */
const LEASE_MS = 5 * 60 * 1000;

/**
 * Sends queued mail. The HTTP answer never waits for SMTP, so an answer takes as long whether it
 * mailed a new account or the owner of an existing one. The body is cleared once the mail is
 * handed over or given up on, so no live link stays in the database; none ever reaches the log
 * (a file transport's mail is logged by its path and subject only). Every replica runs a relay:
 * each leases the mails it sends, so none is sent twice (see claimDueMail).
 */
export function startMailRelay(options: MailRelayOptions): () => Promise<void> {
  const owner = randomUUID();
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    running = running
      .then(() => (closed ? undefined : relayBatch(options, owner)))
      .catch((err: unknown) => {
        options.logger.error({ err }, 'mail relay pass failed');
      });
    return running;
  };
  const tick = async () => {
    await pass();
    if (!closed) timer = setTimeout(() => void tick(), options.intervalMs ?? 500);
  };
  options.signal.on(() => void pass());
  timer = setTimeout(() => void tick(), 0);
  return async () => {
    closed = true;
    clearTimeout(timer);
    await running;
    options.transport.close();
  };
}

async function relayBatch(options: MailRelayOptions, owner: string) {
  const mails = await claimDueMail(options.db, owner, new Date(), LEASE_MS, BATCH, MAX_ATTEMPTS);
  for (const mail of mails) {
    // A slow batch may outlive the lease of its last mails; one another relay took over is skipped.
    const leased = await renewMailLease(options.db, mail.id, owner, new Date(Date.now() + LEASE_MS));
    if (leased) await deliver(options, mail);
  }
}

async function deliver(options: MailRelayOptions, mail: QueuedMail): Promise<void> {
  const { db, logger, transport } = options;
  try {
    const file = await transport.send({ to: mail.recipient, subject: mail.subject, text: mail.body ?? '' });
    if (file) logger.info({ mail_file: file, mail_subject: mail.subject }, 'mail written to a file');
    await markMailSent(db, mail.id, new Date());
  } catch (err) {
    logger.warn(
      { mail_id: mail.id, reason: err instanceof Error ? err.message : String(err) },
      'mail delivery failed',
    );
    await markMailFailed(db, mail.id, MAX_ATTEMPTS);
  }
}
