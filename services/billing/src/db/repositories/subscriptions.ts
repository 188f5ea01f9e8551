import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';
import type { Period, Product } from '../../domain/subscription.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The periods of one product that have not ended by `now`, with what each paid. */
export async function periodsFrom(db: Db, accountId: string, product: Product, now: Date): Promise<Period[]> {
  const rows = await db
    .selectFrom('subscription_periods')
    .innerJoin('ledger_entries', 'ledger_entries.id', 'subscription_periods.ledger_entry_id')
    .select([
      'subscription_periods.id',
      'subscription_periods.tier',
      'subscription_periods.starts_at',
      'subscription_periods.expires_at',
      'subscription_periods.ledger_entry_id',
      'ledger_entries.delta_atomic',
    ])
    .where('subscription_periods.account_id', '=', accountId)
    .where('subscription_periods.product', '=', product)
    .where('subscription_periods.expires_at', '>', now)
    .orderBy('subscription_periods.starts_at')
    .execute();
  return rows.map(({ delta_atomic, ...row }) => ({ ...row, paid_atomic: -delta_atomic }));
}

export async function insertPeriod(
  trx: Transaction<Database>,
  period: {
    account_id: string;
    product: Product;
    tier: string;
    starts_at: Date;
    expires_at: Date;
    ledger_entry_id: number;
  },
): Promise<void> {
  await trx.insertInto('subscription_periods').values(period).execute();
}

/** The tier of the period a ledger entry paid for, if it paid for one. */
export async function tierPaidBy(db: Db, ledgerEntryId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscription_periods')
    .select('tier')
    .where('ledger_entry_id', '=', ledgerEntryId)
    .executeTakeFirst();
  return row?.tier;
}

/** Cuts a period short at `at` (a switch to another tier). */
export async function endPeriod(trx: Transaction<Database>, id: number, at: Date): Promise<void> {
  await trx.updateTable('subscription_periods').set({ expires_at: at }).where('id', '=', id).execute();
}

/** Data-plan periods that ended and whose end nobody announced yet, oldest first. */
export async function lapsedPlanPeriods(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('subscription_periods')
    .select(['id', 'account_id', 'tier', 'expires_at'])
    .where('product', '=', 'data_plan')
    .where('expires_at', '<=', now)
    .where('lapse_announced_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export async function markLapseAnnounced(trx: Transaction<Database>, id: number, at: Date): Promise<void> {
  await trx
    .updateTable('subscription_periods')
    .set({ lapse_announced_at: at })
    .where('id', '=', id)
    .execute();
}

/** Takes a lapsed period for this transaction; false when another replica has it or it was announced. */
export async function claimLapsed(trx: Transaction<Database>, id: number): Promise<boolean> {
  const row = await trx
    .selectFrom('subscription_periods')
    .select('id')
    .where('id', '=', id)
    .where('lapse_announced_at', 'is', null)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row !== undefined;
}
