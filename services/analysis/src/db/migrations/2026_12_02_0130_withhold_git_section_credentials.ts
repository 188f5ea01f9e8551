import { sql, type Kysely } from 'kysely';

const WITHHELD =
  'evidence withheld: it was recorded when a .git/config section name was quoted with its credentials; run the audit again to see which keys are exposed';

/** A stored .git/config finding whose evidence holds a user part (`user:pw@`): evidence today never does. */
const LEAKED = sql`f->>'id' = 'files.exposed.git-config' and f->>'evidence' like '%@%'`;

/**
 * Frozen. Reports stored before .git/config section names had their user and password cut out
 * (`[url "https://x-access-token:TOKEN@github.com/"]`) quoted them to anyone holding a share
 * link: that evidence is withheld, the finding kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('runs')
    .set({
      report: sql`jsonb_set(report, '{findings}', (
        select jsonb_agg(case when ${LEAKED} then jsonb_set(f, '{evidence}', to_jsonb(${WITHHELD}::text)) else f end order by n)
        from jsonb_array_elements(report->'findings') with ordinality as t(f, n)))`,
    })
    .where(
      sql<boolean>`report is not null and exists (
        select 1 from jsonb_array_elements(report->'findings') as e(f) where ${LEAKED})`,
    )
    .execute();
}
