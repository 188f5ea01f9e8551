import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MailTransport } from './smtp.js';

/** Header values come from our own templates; a line break in one would start a forged header. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * The mailbox of the all-in-one mode: each mail becomes an RFC 5322 `.eml` file in `dir` (mode
 * 0600, the directory 0700), which a mail client opens and a person reads the link from. Answers
 * the file's path, which is all that reaches the log.
 */
export function mailFilesTransport(dir: string, from: string): MailTransport {
  const root = resolve(dir);
  return {
    send: async (mail) => {
      await mkdir(root, { recursive: true, mode: 0o700 });
      const at = new Date();
      // Dots between the parts, so no part reads as a token to the log's redaction.
      const stamp = at.toISOString().replace('T', '.').replace(/:/g, '-').replace('Z', '');
      const file = join(root, `${stamp}.${randomUUID().slice(0, 8)}.eml`);
      const text = [
        `From: ${oneLine(from)}`,
        `To: ${oneLine(mail.to)}`,
        `Subject: ${oneLine(mail.subject)}`,
        `Date: ${at.toUTCString()}`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        mail.text,
        '',
      ].join('\r\n');
      await writeFile(file, text, { mode: 0o600, flag: 'wx' });
      return file;
    },
    close: () => {},
  };
}
