import { sql, type Kysely } from 'kysely';
import { SCHEMA, type Database } from '../database.js';
import type { PurgedTable } from '../../domain/retention.js';

const t = (name: PurgedTable) => sql.table(`${SCHEMA}.${name}`);

/**
 * Every base present in the table, by a loose scan of the (base, ts) index: one index probe per
 * base instead of reading the table (Postgres 15 has no skip scan).
 */
export async function basesIn(db: Kysely<Database>, table: PurgedTable): Promise<string[]> {
  const { rows } = await sql<{ base: string }>`
    with recursive b(base) as (
      (select base from ${t(table)} order by base limit 1)
      union all
      select (select c.base from ${t(table)} c where c.base > b.base order by c.base limit 1) from b
       where b.base is not null
    )
    select base from b where base is not null`.execute(db);
  return rows.map((r) => r.base);
}

/**
 * Deletes at most `limit` rows of `base` older than `cutoff`: a range of the (base, ts) index, then a
 * TID scan, so one statement locks a bounded number of rows for a short time. Idempotent: a replica
 * deleting the same rows at the same moment waits for the first and then skips them.
 */
export async function deleteExpiredBatch(
  db: Kysely<Database>,
  table: PurgedTable,
  base: string,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const result = await sql`
    delete from ${t(table)}
     where ctid = any(array(select ctid from ${t(table)} where base = ${base} and ts < ${cutoff} limit ${limit}))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Runs `fn` on one pinned connection holding a session advisory lock, or answers undefined when
 * another replica holds it: one purger at a time, the others skip their turn.
 */
export async function withPurgeLock<T>(
  db: Kysely<Database>,
  fn: (conn: Kysely<Database>) => Promise<T>,
): Promise<T | undefined> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(hashtext('meridian.data.retention')) as locked`.execute(conn);
    if (!rows[0]?.locked) return undefined;
    try {
      return await fn(conn);
    } finally {
      await sql`select pg_advisory_unlock(hashtext('meridian.data.retention'))`.execute(conn);
    }
  });
}
