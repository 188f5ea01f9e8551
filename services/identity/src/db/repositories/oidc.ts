import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

export async function insertFlow(db: Db, row: Omit<Database['oidc_flows'], 'used_at'>): Promise<void> {
  await db
    .insertInto('oidc_flows')
    .values({ ...row, used_at: null })
    .execute();
}

/** Marks the browser's flow used and answers it; a flow works for one callback only. */
export function consumeFlow(db: Db, browserHash: string, provider: string, now: Date) {
  return db
    .updateTable('oidc_flows')
    .set({ used_at: now })
    .where('browser_hash', '=', browserHash)
    .where('provider', '=', provider)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['state', 'nonce', 'code_verifier'])
    .executeTakeFirst();
}

export async function findLinkedAccount(
  db: Db,
  issuer: string,
  subject: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('oidc_links')
    .select('account_id')
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row?.account_id;
}

/** Links an identity; false when it is linked already (to this account or another). */
export async function insertLink(
  db: Db,
  issuer: string,
  subject: string,
  accountId: string,
): Promise<boolean> {
  const made = await db
    .insertInto('oidc_links')
    .values({ issuer, subject, account_id: accountId })
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .returning('subject')
    .executeTakeFirst();
  return made !== undefined;
}

/** Unlinks every provider identity of an account. */
export async function deleteLinks(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('oidc_links').where('account_id', '=', accountId).execute();
}

/** The provider identities linked to an account, oldest first. */
export function listLinks(db: Db, accountId: string) {
  return db
    .selectFrom('oidc_links')
    .select(['issuer', 'subject', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
}

/** Unlinks one identity of an account; false when the account has no such link. */
export async function deleteLink(
  db: Db,
  accountId: string,
  issuer: string,
  subject: string,
): Promise<boolean> {
  const gone = await db
    .deleteFrom('oidc_links')
    .where('account_id', '=', accountId)
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .returning('subject')
    .executeTakeFirst();
  return gone !== undefined;
}

export async function insertLinkOffer(
  db: Db,
  row: { token_hash: string; account_id: string; issuer: string; subject: string; expires_at: Date },
): Promise<void> {
  await db
    .insertInto('oidc_link_offers')
    .values({ ...row, used_at: null })
    .execute();
}

/** Marks a live offer used and answers it; a used, expired or unknown token answers undefined. */
export function consumeLinkOffer(db: Db, tokenHash: string, now: Date) {
  return db
    .updateTable('oidc_link_offers')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'issuer', 'subject'])
    .executeTakeFirst();
}
