import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The operator role (granted by `identity:admin grant-operator`) and identity's append-only
 * log of operator actions: who (an operator account, or the command line), what, on what, why, when.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_roles')
    .addColumn('account_id', 'uuid', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('granted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('granted_by', 'text', (c) => c.notNull())
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
    create function identity.refuse_operator_action_change() returns trigger language plpgsql as $$
    begin
      raise exception 'operator actions are append-only (% refused)', tg_op using errcode = 'P0001';
    end $$`.execute(db);
  await sql`
    create trigger operator_actions_append_only before update or delete on identity.operator_actions
    for each row execute function identity.refuse_operator_action_change()`.execute(db);
  await sql`
    create trigger operator_actions_no_truncate before truncate on identity.operator_actions
    for each statement execute function identity.refuse_operator_action_change()`.execute(db);
}
