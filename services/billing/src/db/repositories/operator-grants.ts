import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The ledger reasons of an operator's grant and revocation of credit. */
export const OPERATOR_CREDIT_REASONS = ['admin_grant', 'admin_revoke'] as const;

export interface GrantFilters {
  account?: string;
  /** The actor as posted, or an operator's account id (posted as `operator:<id>`). */
  operator?: string;
  since?: Date;
  until?: Date;
  limit: number;
  /** Only entries posted before this one. */
  before?: number;
}

/** Operators' grants and revocations, newest first, narrowed by the filters; limit + 1 rows. */
export async function operatorCreditEntries(db: Db, f: GrantFilters) {
  return db
    .selectFrom('ledger_entries')
    .select(['id', 'account_id', 'created_at', 'delta_atomic', 'reason', 'ref', 'actor'])
    .where('reason', 'in', OPERATOR_CREDIT_REASONS)
    .$if(f.account !== undefined, (q) => q.where('account_id', '=', f.account!))
    .$if(f.operator !== undefined, (q) => q.where('actor', 'in', [f.operator!, `operator:${f.operator!}`]))
    .$if(f.since !== undefined, (q) => q.where('created_at', '>=', f.since!))
    .$if(f.until !== undefined, (q) => q.where('created_at', '<', f.until!))
    .$if(f.before !== undefined, (q) => q.where('id', '<', f.before!))
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}
