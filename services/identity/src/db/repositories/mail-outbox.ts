import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

/** Written inside the transaction of the change the mail belongs to; the relay sends it. */
export async function insertMail(db: Db, mail: { to: string; subject: string; text: string }): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({ id: randomUUID(), recipient: mail.to, subject: mail.subject, body: mail.text })
    .execute();
}

export interface QueuedMail {
  id: string;
  recipient: string;
  subject: string;
  body: string | null;
}

/**
 * Leases up to `limit` due mails to `owner` and answers them oldest first. One statement: rows
 * another relay is claiming at the same moment are skipped (SKIP LOCKED), rows it holds a live
 * lease on are not due, and rows whose lease ran out (their relay died) are due again.
 */
export async function claimDueMail(
  db: Db,
  owner: string,
  now: Date,
  leaseMs: number,
  limit: number,
  maxAttempts: number,
): Promise<QueuedMail[]> {
  const due = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('sent_at', 'is', null)
    .where('attempts', '<', maxAttempts)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('seq')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const rows = await db
    .updateTable('mail_outbox')
    .set({ lease_owner: owner, lease_until: new Date(now.getTime() + leaseMs) })
    .where('id', 'in', due)
    .returning(['id', 'seq', 'recipient', 'subject', 'body'])
    .execute();
  return rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map(({ id, recipient, subject, body }) => ({ id, recipient, subject, body }));
}

/** Extends the owner's lease on an unsent mail; false when another relay has taken it over. */
export async function renewMailLease(db: Db, id: string, owner: string, until: Date): Promise<boolean> {
  const renewed = await db
    .updateTable('mail_outbox')
    .set({ lease_until: until })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('sent_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return renewed !== undefined;
}

/** Handed over: the body goes, so no live link stays in the database. */
export async function markMailSent(db: Db, id: string, at: Date): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ sent_at: at, body: null, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .execute();
}

/**
 * One more failed attempt; the lease goes, so the next pass of any relay retries it. The last
 * attempt also clears the body: a mail never sent must not keep a live link.
 */
export async function markMailFailed(db: Db, id: string, maxAttempts: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      body: eb
        .case()
        .when('attempts', '>=', maxAttempts - 1)
        .then(null)
        .else(eb.ref('body'))
        .end(),
      lease_owner: null,
      lease_until: null,
    }))
    .where('id', '=', id)
    .execute();
}
