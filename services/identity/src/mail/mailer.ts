import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import nodemailer, { type Transporter } from 'nodemailer';
import { unredacted, type Logger } from '@meridian/observability';
import type { Database } from '../db/database.js';
import {
  claimDueMail,
  markMailFailed,
  markMailSent,
  renewMailLease,
  type QueuedMail,
} from '../db/repositories/mail-outbox.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Written inside the transaction of the change the mail belongs to; the relay sends it. */
export async function queueMail(db: Kysely<Database>, mail: Mail): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({ id: randomUUID(), recipient: mail.to, subject: mail.subject, body: mail.text })
    .execute();
}

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
  smtpUrl: string | undefined;
  from: string;
  signal: MailSignal;
  intervalMs?: number;
}

const MAX_ATTEMPTS = 10;
const BATCH = 20;
/**
 * How long a relay owns a mail it claimed. Renewed before each send, so it only has to outlast one
 * delivery, which the SMTP timeouts below bound well within it.
 */
const LEASE_MS = 5 * 60 * 1000;
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

/**
 * Sends queued mail. The HTTP answer never waits for SMTP, so an answer takes as long whether it
 * mailed a new account or the owner of an existing one. With SMTP_URL unset the mail is printed
 * to the log instead (all-in-one: the link is what a person trying the system needs) and its
 * body stays in identity.mail_outbox; with SMTP the body is cleared once sent or given up on, so no live link
 * stays in the database and none reaches the log. Every replica runs a relay: each leases the
 * mails it sends, so none is sent twice (see claimDueMail).
 */
export function startMailRelay(options: MailRelayOptions): () => Promise<void> {
  const transport = options.smtpUrl
    ? nodemailer.createTransport({ url: options.smtpUrl, ...SMTP_TIMEOUTS })
    : undefined;
  const owner = randomUUID();
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    running = running
      .then(() => (closed ? undefined : relayBatch(options, transport, owner)))
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
    transport?.close();
  };
}

async function relayBatch(options: MailRelayOptions, transport: Transporter | undefined, owner: string) {
  const mails = await claimDueMail(options.db, owner, new Date(), LEASE_MS, BATCH, MAX_ATTEMPTS);
  for (const mail of mails) {
    // A slow batch may outlive the lease of its last mails; one another relay took over is skipped.
    const leased = await renewMailLease(options.db, mail.id, owner, new Date(Date.now() + LEASE_MS));
    if (leased) await deliver(options, transport, mail);
  }
}

async function deliver(
  options: MailRelayOptions,
  transport: Transporter | undefined,
  mail: QueuedMail,
): Promise<void> {
  const { db, logger } = options;
  if (!transport) {
    // The documented exception: without SMTP the log is the mailbox of the all-in-one mode.
    logger.info(
      { mail_to: mail.recipient, mail_subject: mail.subject, mail_body: unredacted(mail.body) },
      'mail not sent (SMTP_URL unset)',
    );
    await markMailSent(db, mail.id, new Date(), true);
    return;
  }
  try {
    await transport.sendMail({
      from: options.from,
      to: mail.recipient,
      subject: mail.subject,
      text: mail.body ?? '',
    });
    await markMailSent(db, mail.id, new Date(), false);
  } catch (err) {
    logger.warn(
      { mail_id: mail.id, reason: err instanceof Error ? err.message : String(err) },
      'mail delivery failed',
    );
    await markMailFailed(db, mail.id, MAX_ATTEMPTS);
  }
}
