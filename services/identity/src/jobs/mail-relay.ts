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
  /** Unset: the all-in-one mode, where the mail is logged and kept in mail_outbox. */
  transport: MailTransport | undefined;
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
 * mailed a new account or the owner of an existing one. Without a transport the mail is printed
 * to the log instead (all-in-one: the link is what a person trying the system needs) and its
 * body stays in identity.mail_outbox; with SMTP the body is cleared once sent or given up on, so
 * no live link stays in the database and none reaches the log. Every replica runs a relay: each
 * leases the mails it sends, so none is sent twice (see claimDueMail).
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
    options.transport?.close();
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
  if (!transport) {
    // The documented exception: without SMTP the log is the mailbox of the all-in-one mode.
    logger.info(
      { mail_to: mail.recipient, mail_subject: mail.subject, mail_body: mail.body },
      'mail not sent (SMTP_URL unset)',
    );
    await markMailSent(db, mail.id, new Date(), true);
    return;
  }
  try {
    await transport.send({ to: mail.recipient, subject: mail.subject, text: mail.body ?? '' });
    await markMailSent(db, mail.id, new Date(), false);
  } catch (err) {
    logger.warn(
      { mail_id: mail.id, reason: err instanceof Error ? err.message : String(err) },
      'mail delivery failed',
    );
    await markMailFailed(db, mail.id, MAX_ATTEMPTS);
  }
}
