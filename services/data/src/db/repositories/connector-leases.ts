import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/**
 * Takes or renews the lease of a connector for `holder` (on the database's clock, so replicas'
 * clocks do not matter): true when `holder` has it until now + ttl, false when another replica holds
 * an unexpired lease. One statement: two replicas taking a lapsed lease at once cannot both win.
 */
export async function takeLease(
  db: Kysely<Database>,
  connector: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const until = sql<Date>`now() + make_interval(secs => ${ttlMs / 1000})`;
  const row = await db
    .insertInto('connector_leases')
    .values({ connector, holder, expires_at: until })
    .onConflict((oc) =>
      oc
        .column('connector')
        .doUpdateSet({
          holder,
          expires_at: until,
          taken_at: sql`case when connector_leases.holder = ${holder} then connector_leases.taken_at else now() end`,
        })
        .where((eb) =>
          eb.or([
            eb('connector_leases.holder', '=', holder),
            eb('connector_leases.expires_at', '<', sql<Date>`now()`),
          ]),
        ),
    )
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === holder;
}

/** Who holds a connector's lease now, if anyone. */
export async function leaseHolder(db: Kysely<Database>, connector: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('connector_leases')
    .select('holder')
    .where('connector', '=', connector)
    .where('expires_at', '>=', sql<Date>`now()`)
    .executeTakeFirst();
  return row?.holder;
}

/** Lets go of every lease of `holder` (a clean stop), so another replica takes over at once. */
export async function releaseLeases(db: Kysely<Database>, holder: string): Promise<void> {
  await db.deleteFrom('connector_leases').where('holder', '=', holder).execute();
}
