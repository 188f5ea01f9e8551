import { sql, type Kysely } from 'kysely';

const WITHHELD =
  'evidence withheld: it was recorded when evidence quoted the file itself; run the audit again to see which keys are exposed';

/** An exposed-file finding of a stored report (files.exposed.none quotes no file). */
const EXPOSED = sql`f->>'id' like 'files.exposed.%' and f->>'id' <> 'files.exposed.none'`;

/**
 * Frozen. Reports stored before exposed-file evidence named keys only quoted the file, secrets
 * included, to anyone holding a share link: their evidence is withheld, the findings kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('runs')
    .set({
      report: sql`jsonb_set(report, '{findings}', (
        select jsonb_agg(case when ${EXPOSED} then jsonb_set(f, '{evidence}', to_jsonb(${WITHHELD}::text)) else f end order by n)
        from jsonb_array_elements(report->'findings') with ordinality as t(f, n)))`,
    })
    .where(
      sql<boolean>`report is not null and exists (
        select 1 from jsonb_array_elements(report->'findings') as e(f) where ${EXPOSED})`,
    )
    .execute();
}
