import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The human reviews of `audit_review` runs (one per run: recorded by an operator, or
 * marked overdue by the job that refunds it), and analysis' append-only log of operator actions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reviews')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('note', 'text')
    .addColumn('author_account_id', 'uuid')
    .addColumn('author', 'text')
    .addColumn('reviewed_at', 'timestamptz')
    .addColumn('overdue_at', 'timestamptz')
    .execute();
  await db.schema
    .createTable('operator_actions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  // Append-only: the database itself refuses to change or remove a logged action.
  await sql`
    create function analysis.refuse_operator_action_change() returns trigger language plpgsql as $$
    begin
      raise exception 'operator actions are append-only (% refused)', tg_op using errcode = 'P0001';
    end $$`.execute(db);
  await sql`
    create trigger operator_actions_append_only before update or delete on analysis.operator_actions
    for each row execute function analysis.refuse_operator_action_change()`.execute(db);
  await sql`
    create trigger operator_actions_no_truncate before truncate on analysis.operator_actions
    for each statement execute function analysis.refuse_operator_action_change()`.execute(db);
}
