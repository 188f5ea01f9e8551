import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';
import type { Audience } from '../../domain/share.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Revokes the live link of a run, if any; answers whether one was live. */
export async function revokeLiveLink(db: Db, runId: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('share_links')
    .set({ revoked_at: at })
    .where('run_id', '=', runId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertLink(
  db: Db,
  link: {
    token_hash: string;
    run_id: string;
    account_id: string;
    audience: Audience;
    expires_at: Date | null;
  },
  at: Date,
): Promise<void> {
  await db
    .insertInto('share_links')
    .values({ ...link, audience: JSON.stringify(link.audience) as unknown as Audience, created_at: at })
    .execute();
}

export async function findLinkByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('share_links')
    .select(['run_id', 'audience', 'expires_at', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}
