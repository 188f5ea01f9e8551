import type { Kysely } from 'kysely';

/**
 * Frozen. A login challenge remembers how the first factor was given (password or an OpenID
 * provider), so the session it ends in is recorded with that method.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('login_challenges')
    .addColumn('method', 'text', (c) => c.notNull().defaultTo('password'))
    .execute();
}
