import { sql, type Kysely } from 'kysely';

/**
 * Frozen. What the reconciliation of payments left `settling` or `pending` needs: the payment as
 * received (`payload`, the header's base64, cleared once the payment is settled or failed), when it
 * was last looked at, and the state `unreconciled` for those an operator must settle by hand.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('payload', 'text')
    .addColumn('checked_at', 'timestamptz')
    .execute();
  await sql`alter table x402.payments drop constraint payments_state_check`.execute(db);
  await sql`alter table x402.payments add constraint payments_state_check
    check (state in ('settling', 'settled', 'pending', 'failed', 'unreconciled'))`.execute(db);
  await sql`create index payments_open_idx on x402.payments (state, created_at)
    where state in ('settling', 'pending', 'unreconciled')`.execute(db);
}
