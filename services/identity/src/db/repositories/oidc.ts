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

export async function insertLink(db: Db, issuer: string, subject: string, accountId: string): Promise<void> {
  await db
    .insertInto('oidc_links')
    .values({ issuer, subject, account_id: accountId })
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .execute();
}

/** Unlinks every provider identity of an account. */
export async function deleteLinks(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('oidc_links').where('account_id', '=', accountId).execute();
}
