import type { OpenDatabase } from '@meridian/db';

/** The columns of billing's schema the ledger's invariant reads. */
export interface LedgerTables {
  balances: { account_id: string; balance_atomic: number };
  ledger_entries: { account_id: string; delta_atomic: number };
}

/**
 * Billing's balances beside the sums of their ledger entries, each as sorted [account, atomic]
 * pairs, and the balances below zero (a test expects the first two equal and the last empty), and
 * how many entries there are.
 */
export async function ledgerSums(db: OpenDatabase<LedgerTables>['db']): Promise<{
  balances: [string, number][];
  sums: [string, number][];
  negative: [string, number][];
  entries: number;
}> {
  const balances = await db.selectFrom('balances').select(['account_id', 'balance_atomic']).execute();
  const entries = await db.selectFrom('ledger_entries').select(['account_id', 'delta_atomic']).execute();
  const sums = new Map<string, number>();
  for (const e of entries) sums.set(e.account_id, (sums.get(e.account_id) ?? 0) + Number(e.delta_atomic));
  const pairs = balances.map((b): [string, number] => [b.account_id, Number(b.balance_atomic)]).sort();
  return {
    balances: pairs,
    sums: [...sums.entries()].sort(),
    negative: pairs.filter(([, n]) => n < 0),
    entries: entries.length,
  };
}
