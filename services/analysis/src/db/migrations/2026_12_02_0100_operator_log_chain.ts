import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The operator log becomes a hash chain (each row: the previous row's hash and its own
 * SHA-256 over its fields) and names the operator checked to hold the role. The rows logged before
 * are chained here, in id order, with the hash of that time copied below.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('operator_actions')
    .addColumn('operator_account_id', 'uuid')
    .addColumn('operator_email', 'text')
    .addColumn('prev_hash', 'text')
    .addColumn('hash', 'text')
    .execute();
  const rows = await db.selectFrom('operator_actions').selectAll().orderBy('id').execute();
  if (rows.length === 0) return;
  await sql`alter table analysis.operator_actions disable trigger operator_actions_append_only`.execute(db);
  let previous: string | null = null;
  for (const row of rows) {
    const canonical: string = JSON.stringify([
      previous,
      (row.at as Date).toISOString(),
      row.actor,
      row.action,
      row.target,
      row.reason,
      null,
      null,
    ]);
    const hash: string = createHash('sha256').update(canonical).digest('hex');
    await db
      .updateTable('operator_actions')
      .set({ prev_hash: previous, hash })
      .where('id', '=', row.id)
      .execute();
    previous = hash;
  }
  await sql`alter table analysis.operator_actions enable trigger operator_actions_append_only`.execute(db);
}
