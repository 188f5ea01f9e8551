import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { openDatabase } from '@meridian/db';
import type { Database } from '../../src/db/database.js';
import { smtpTransport } from '../../src/adapters/smtp.js';
import { insertMail } from '../../src/db/repositories/mail-outbox.js';
import { MailSignal, startMailRelay } from '../../src/jobs/mail-relay.js';
import { freshEmail, linkIn, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, pressConfirmButton, signIn, signUpConfirmed } from './flows.js';
import { newEvent } from '@meridian/bus';
import { DURABLES, EVENTS } from '@meridian/contracts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_mail');
});

afterAll(async () => {
  await h?.close();
});

const outboxRow = (to: string) =>
  h.deps.db
    .selectFrom('mail_outbox')
    .select(['body', 'sent_at', 'lease_owner'])
    .where('recipient', '=', to)
    .executeTakeFirstOrThrow();

describe('mail relay', () => {
  it('delivers each mail once when two replicas relay from one database', async () => {
    // A second replica: its own pool, its own relay, the same database and SMTP server.
    const replica = openDatabase<Database>(
      { kind: 'pg', url: h.deps.config.DATABASE_URL!, poolSize: 5 },
      'identity',
    );
    const signal = new MailSignal();
    const stop = startMailRelay({
      db: replica.db,
      logger: h.deps.logger,
      transport: smtpTransport(h.smtp.url, h.deps.config.MAIL_FROM),
      signal,
      intervalMs: 20,
    });
    try {
      const recipients = Array.from({ length: 30 }, () => `relay.${freshEmail()}`);
      await h.deps.db.transaction().execute(async (trx) => {
        for (const to of recipients) await insertMail(trx, { to, subject: 'Relay', text: 'one copy' });
      });
      h.deps.mail.kick();
      signal.kick();
      await waitFor(
        async () => {
          const unsent = await h.deps.db
            .selectFrom('mail_outbox')
            .select('id')
            .where('recipient', 'in', recipients)
            .where('sent_at', 'is', null)
            .execute();
          return unsent.length === 0;
        },
        { what: 'every mail sent' },
      );
      // A mail is marked sent only after the SMTP server accepted it, so all copies are in.
      const copies = recipients.map((to) => h.smtp.mails.filter((m) => m.to === to).length);
      expect(copies).toEqual(recipients.map(() => 1));
    } finally {
      await stop();
      await replica.close();
    }
  });

  it("retakes the mails of a relay that died holding them, and leaves a live relay's lease alone", async () => {
    const [held, orphaned] = [`held.${freshEmail()}`, `orphaned.${freshEmail()}`];
    const now = Date.now();
    // Queued in this order with their leases in one statement, so the relay meets them only so.
    await h.deps.db
      .insertInto('mail_outbox')
      .values([
        {
          id: crypto.randomUUID(),
          recipient: held,
          subject: 'Held',
          body: 'sent by the relay holding it',
          lease_owner: 'a-live-replica',
          lease_until: new Date(now + 5 * 60_000),
        },
        {
          id: crypto.randomUUID(),
          recipient: orphaned,
          subject: 'Orphaned',
          body: 'its relay died',
          lease_owner: 'a-crashed-replica',
          lease_until: new Date(now - 1000),
        },
      ])
      .execute();
    h.deps.mail.kick();
    await h.mailTo(orphaned);
    // The relay marks a mail sent after the SMTP server took it, so the mark may land a moment later.
    await waitFor(async () => (await outboxRow(orphaned)).sent_at !== null, {
      what: 'the orphaned mail marked sent',
    });
    // The held mail comes first in the queue: had it been due, the relay would have sent it first.
    expect(h.smtp.mails.some((m) => m.to === held)).toBe(false);
    expect(await outboxRow(held)).toMatchObject({ sent_at: null, lease_owner: 'a-live-replica' });
    expect(await outboxRow(orphaned)).toMatchObject({
      sent_at: expect.any(Date),
      body: null,
      lease_owner: null,
    });
  });
});

describe('all-in-one mail (SMTP_URL unset)', () => {
  let solo: Harness;
  let mailDir: string;

  beforeAll(async () => {
    mailDir = await mkdtemp(join(tmpdir(), 'identity-mail-'));
    solo = await startHarness('identity_mail_solo', { SMTP_URL: undefined, MAIL_DIR: mailDir });
  });

  afterAll(async () => {
    await solo?.close();
    await rm(mailDir, { recursive: true, force: true });
  });

  /** The log line of a mail written to a file, by its subject, as a person trying the system reads it. */
  async function loggedMail(subject: string): Promise<{ mail_file: string; mail_subject: string }> {
    const find = () =>
      solo.logLines
        .map((line) => JSON.parse(line) as { msg?: string; mail_file: string; mail_subject: string })
        .find((entry) => entry.msg === 'mail written to a file' && entry.mail_subject === subject);
    await waitFor(() => find() !== undefined, { what: `the logged mail "${subject}"` });
    return find()!;
  }

  it('writes the mail as an .eml file and logs only its path and subject; the link in the file confirms the account', async () => {
    const email = freshEmail();
    const signup = await request(solo.app)
      .post('/auth/signup')
      .set(await anonymous())
      .send({ email, password: STRONG_PASSWORD });
    expect(signup.status).toBe(202);
    const logged = await loggedMail('Confirm your Meridian account');
    expect(dirname(logged.mail_file)).toBe(mailDir);
    expect(logged.mail_file).toMatch(/\.eml$/);
    const eml = await readFile(logged.mail_file, 'utf8');
    expect(eml).toContain(`To: ${email}\r\n`);
    expect(eml).toContain('Subject: Confirm your Meridian account\r\n');
    expect((await stat(logged.mail_file)).mode & 0o777).toBe(0o600);
    const link = linkIn({ text: eml });
    expect(link.pathname).toBe('/auth/verify-email');
    const token = link.searchParams.get('token')!;
    // The token is in the file only: never in a log line, nor left in the database.
    expect(solo.logLines.some((line) => line.includes(token))).toBe(false);
    const keptRow = () =>
      solo.deps.db
        .selectFrom('mail_outbox')
        .select(['body', 'sent_at'])
        .where('recipient', '=', email)
        .executeTakeFirstOrThrow();
    await waitFor(async () => (await keptRow()).sent_at !== null, { what: 'the written mail marked sent' });
    expect(await keptRow()).toEqual({ body: null, sent_at: expect.any(Date) });
    expect(solo.smtp.mails).toEqual([]);

    expect((await pressConfirmButton(solo, link)).status).toBe(200);
    const login = await request(solo.app)
      .post('/auth/login')
      .set(await anonymous())
      .send({ email, password: STRONG_PASSWORD });
    expect(login.status).toBe(200);
  });
});

describe('booking confirmations', () => {
  it('mails the account once for each booking the requests service confirms', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const confirmed = newEvent('requests', EVENTS.requestsBookingConfirmed, {
      booking_id: 'booking-5f0e7a51-2f7b-4a64-9a55-1f0f2d1c2b3a',
      account_id: me.account_id,
      starts_at: '2026-12-01T09:00:00.000Z',
      ends_at: '2026-12-01T10:00:00.000Z',
      topic: 'Our CSP',
    });
    await h.bus.publish(confirmed);
    await h.bus.publish({ ...confirmed });
    const mail = await h.mailTo(email, 2);
    expect(mail.raw).toContain('Subject: Your consulting session on 2026-12-01 09:00 UTC is booked');
    expect(mail.text).toContain('Topic:   Our CSP');
    await waitFor(async () => {
      const done = await h.deps.db
        .selectFrom('processed_events')
        .select('event_id')
        .where('consumer', '=', DURABLES.identityBookingConfirmed)
        .where('event_id', '=', confirmed.id)
        .execute();
      return done.length === 1;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.smtp.mails.filter((m) => m.to === email && m.text.includes('consulting session'))).toHaveLength(
      1,
    );
  });
});
