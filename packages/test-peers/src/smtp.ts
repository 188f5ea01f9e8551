import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { rememberSecret } from '@meridian/observability/testing';

export interface ReceivedMail {
  to: string;
  raw: string;
  /** The text with quoted-printable soft breaks and escapes undone. */
  text: string;
}

/** A real SMTP server on loopback that keeps every mail it receives. */
export async function startSmtp() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // A real refusal for tests of failed delivery: the server rejects any `bounce…@` recipient.
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('bounce')) callback(new Error('550 mailbox unavailable'));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((r) => r.address).join(',');
        mails.push({ to, raw, text: decodeQuotedPrintable(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The link of a mail body, `<base>/auth/...?token=...`; its token is remembered as a secret, so
 * the suite's log scan proves no process logged it.
 */
export function linkIn(mail: Pick<ReceivedMail, 'text'>): URL {
  const match = mail.text.match(/https?:\/\/\S+\?token=[A-Za-z0-9_-]+/);
  if (!match) throw new Error(`no link in mail:\n${mail.text}`);
  const link = new URL(match[0]);
  rememberSecret(link.searchParams.get('token'));
  return link;
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
