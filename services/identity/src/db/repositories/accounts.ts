import type { Kysely } from 'kysely';
import type { Plan } from '@meridian/contracts';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

const ACCOUNT_COLUMNS = [
  'id',
  'email',
  'email_confirmed_at',
  'password_hash',
  'password_proven_at',
  'plan',
  'plan_changed_at',
  'nickname',
  'totp_state',
  'totp_secret_sealed',
  'totp_last_step',
  'created_at',
] as const;

export type AccountRow = Awaited<ReturnType<typeof findAccountById>> & {};

export function findAccountById(db: Db, id: string) {
  return db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findAccountByEmail(db: Db, email: string) {
  return db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('email', '=', email).executeTakeFirst();
}

/** The account of an email, row-locked for a change that depends on its state. */
export function lockAccountByEmail(db: Db, email: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email_confirmed_at', 'password_hash', 'password_proven_at'])
    .where('email', '=', email)
    .forUpdate()
    .executeTakeFirst();
}

/** The account, row-locked: changes of its second factor or keys take turns. */
export function lockAccountById(db: Db, id: string) {
  return db
    .selectFrom('accounts')
    .select(ACCOUNT_COLUMNS)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Inserts unless the email is taken; answers the new id or undefined. */
export async function insertAccount(
  db: Db,
  row: { id: string; email: string | null; password_hash: string | null; email_confirmed_at: Date | null },
): Promise<string | undefined> {
  const inserted = await db
    .insertInto('accounts')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** Confirms the email unless it already is; true when this call confirmed it. */
export async function confirmEmail(db: Db, id: string, at: Date): Promise<boolean> {
  const confirmed = await db
    .updateTable('accounts')
    .set({ email_confirmed_at: at })
    .where('id', '=', id)
    .where('email_confirmed_at', 'is', null)
    .executeTakeFirst();
  return confirmed.numUpdatedRows > 0n;
}

/** A password only a sign-up chose (or none): not proven to be the mailbox owner's. */
export async function setPasswordHash(db: Db, id: string, hash: string | null): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: hash, password_proven_at: null })
    .where('id', '=', id)
    .execute();
}

/** A password set by whoever proved the mailbox in the same step (confirmation page, reset). */
export async function setProvenPassword(db: Db, id: string, hash: string, at: Date): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: hash, password_proven_at: at })
    .where('id', '=', id)
    .execute();
}

export async function setPlan(db: Db, id: string, plan: Plan, changedAt: Date): Promise<void> {
  await db.updateTable('accounts').set({ plan, plan_changed_at: changedAt }).where('id', '=', id).execute();
}

export async function setNickname(db: Db, id: string, nickname: string): Promise<boolean> {
  const clash = await db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['nickname']), '=', nickname.toLowerCase()))
    .where('id', '<>', id)
    .executeTakeFirst();
  if (clash) return false;
  await db.updateTable('accounts').set({ nickname }).where('id', '=', id).execute();
  return true;
}
