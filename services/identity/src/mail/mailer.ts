import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '@meridian/observability';
import type { Database } from '../db/database.js';

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

/**
 * Sends queued mail. The HTTP answer never waits for SMTP, so an answer takes as long whether it
 * mailed a new account or the owner of an existing one. With SMTP_URL unset the mail is printed
 * to the log instead (all-in-one: the link is what a person trying the system needs) and its
 * body stays in identity.mail_outbox; with SMTP the body is cleared once sent or given up on, so no live link
 * stays in the database and none reaches the log.
 */
export function startMailRelay(options: MailRelayOptions): () => Promise<void> {
  const transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : undefined;
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    running = running
      .then(() => (closed ? undefined : relayBatch(options, transport)))
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

async function relayBatch(options: MailRelayOptions, transport: Transporter | undefined) {
  const rows = await options.db
    .selectFrom('mail_outbox')
    .select(['id', 'recipient', 'subject', 'body'])
    .where('sent_at', 'is', null)
    .where('attempts', '<', MAX_ATTEMPTS)
    .orderBy('seq')
    .limit(20)
    .execute();
  for (const row of rows) await deliver(options, transport, row);
}

async function deliver(
  options: MailRelayOptions,
  transport: Transporter | undefined,
  row: { id: string; recipient: string; subject: string; body: string | null },
): Promise<void> {
  const { db, logger } = options;
  if (!transport) {
    // The documented exception: without SMTP the log is the mailbox of the all-in-one mode.
    logger.info(
      { mail_to: row.recipient, mail_subject: row.subject, mail_body: row.body },
      'mail not sent (SMTP_URL unset)',
    );
    await db.updateTable('mail_outbox').set({ sent_at: new Date() }).where('id', '=', row.id).execute();
    return;
  }
  try {
    await transport.sendMail({
      from: options.from,
      to: row.recipient,
      subject: row.subject,
      text: row.body ?? '',
    });
    await db
      .updateTable('mail_outbox')
      .set({ sent_at: new Date(), body: null })
      .where('id', '=', row.id)
      .execute();
  } catch (err) {
    logger.warn(
      { mail_id: row.id, reason: err instanceof Error ? err.message : String(err) },
      'mail delivery failed',
    );
    // The last attempt also clears the body: a mail never sent must not keep a live link.
    await db
      .updateTable('mail_outbox')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        body: eb
          .case()
          .when('attempts', '>=', MAX_ATTEMPTS - 1)
          .then(null)
          .else(eb.ref('body'))
          .end(),
      }))
      .where('id', '=', row.id)
      .execute();
  }
}
