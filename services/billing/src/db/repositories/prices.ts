import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function allPrices(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('prices').select(['item', 'amount_atomic']).execute();
  return new Map(rows.map((r) => [r.item, r.amount_atomic]));
}

export async function priceOf(db: Db, item: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('prices')
    .select('amount_atomic')
    .where('item', '=', item)
    .executeTakeFirst();
  return row?.amount_atomic;
}

/** Makes the table say exactly `prices`: the configured list replaces what an earlier start wrote. */
export async function replacePrices(trx: Transaction<Database>, prices: Map<string, number>): Promise<void> {
  const items = [...prices.keys()];
  if (items.length === 0) await trx.deleteFrom('prices').execute();
  else await trx.deleteFrom('prices').where('item', 'not in', items).execute();
  for (const [item, amount] of prices)
    await trx
      .insertInto('prices')
      .values({ item, amount_atomic: amount })
      .onConflict((oc) =>
        oc
          .column('item')
          .doUpdateSet({ amount_atomic: amount, updated_at: new Date() })
          .where('prices.amount_atomic', '<>', amount),
      )
      .execute();
}
