import type { Mail } from '../domain/mail.js';

/** Where the mail relay hands a mail over; `send` answers where the mail now is, when that is a file. */
export interface MailTransport {
  send(mail: Mail): Promise<string | undefined>;
  close(): void;
}

/** Bounded so that one delivery fits well within the relay's lease of the mail. */
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

/**
 * An SMTP server (SMTP_URL, nodemailer URL syntax); resolves once the server accepted the mail.
 * nodemailer (~5 MB of heap) is loaded here, so a process that writes its mails to files (the
 * all-in-one) never loads it.
 */
export function smtpTransport(url: string, from: string): MailTransport {
  const transport = import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({ url, ...SMTP_TIMEOUTS }),
  );
  return {
    send: async (mail) => {
      await (await transport).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      return undefined;
    },
    close: () => void transport.then((t) => t.close()),
  };
}
