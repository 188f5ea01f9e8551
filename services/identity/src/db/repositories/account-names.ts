import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

/** Who the accounts of these ids are, as the operator console names them; unknown ids are left out. */
export function accountNames(db: Kysely<Database>, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('accounts').select(['id', 'email', 'nickname']).where('id', 'in', ids).execute();
}

/** The account of an email, as a list of none or one. */
export function accountOfEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom('accounts').select(['id', 'email', 'nickname']).where('email', '=', email).execute();
}
