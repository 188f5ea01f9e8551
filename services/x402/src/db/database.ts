import type { ColumnType } from 'kysely';
import type { OutboxTables } from '@meridian/bus';

export type PaymentState = 'settling' | 'settled' | 'pending' | 'failed' | 'unreconciled';

export interface PaymentsTable {
  payment_id: string;
  state: PaymentState;
  payer: string | null;
  amount_atomic: ColumnType<number, number, number>;
  asset: string;
  network: string;
  pay_to: string;
  resource: string;
  transaction: string | null;
  error_reason: string | null;
  created_at: ColumnType<Date, Date, never>;
  settled_at: Date | null;
  /** The payment header as received, kept while the outcome is open (reconciliation). */
  payload: string | null;
  /** When reconciliation last looked at the payment. */
  checked_at: Date | null;
}

/** Tables of the `x402` schema. */
export interface Database extends OutboxTables {
  payments: PaymentsTable;
}
