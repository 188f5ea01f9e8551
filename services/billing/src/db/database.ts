import type { OperatorActionsTable } from '@meridian/db';
import type { Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';

/** bigint money columns: packages/db hands them over as numbers; 2^53 atomic units is 9 billion USD. */
type Atomic = number;

/** Tables of the `billing` schema. */
export interface Database extends OutboxTables {
  prices: { item: string; amount_atomic: Atomic; updated_at: Generated<Date> };
  balances: { account_id: string; balance_atomic: Atomic; updated_at: Date };
  ledger_entries: {
    id: Generated<number>;
    account_id: string;
    created_at: Date;
    delta_atomic: Atomic;
    reason: string;
    ref: string | null;
    actor: string;
    idempotency_key: string;
    order_id: string | null;
    tx_signature: string | null;
    corrects_id: number | null;
  };
  orders: {
    order_id: string;
    account_id: string;
    kind: string;
    item: string;
    amount_atomic: Atomic;
    created_at: Date;
    paid_at: Date | null;
    paid_by: string | null;
  };
  deposits: {
    id: Generated<number>;
    tx_signature: string;
    slot: Atomic;
    block_time: Date | null;
    amount_atomic: Atomic;
    memo: string | null;
    kind: string;
    account_id: string | null;
    order_id: string | null;
    recorded_at: Date;
  };
  /** Append-only (a trigger refuses UPDATE and DELETE). */
  operator_actions: OperatorActionsTable;
  /** The accounts billing knows: identity's account.created events, and identity's answers. */
  accounts: { account_id: string; created_at: Date | null; recorded_at: Date };
  watcher_cursors: { address: string; last_signature: string; updated_at: Date };
  subscription_periods: {
    id: Generated<number>;
    account_id: string;
    product: string;
    tier: string;
    starts_at: Date;
    expires_at: Date;
    ledger_entry_id: number;
    lapse_announced_at: Date | null;
  };
}
