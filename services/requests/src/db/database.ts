import type { OperatorActionsTable } from '@meridian/db';
import type { Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';

/** Tables of the `requests` schema. */
export interface Database extends OutboxTables {
  service_requests: {
    id: Generated<number>;
    account_id: string;
    kind: string;
    domain: string;
    detail: string | null;
    count: Generated<number>;
    first_at: Date;
    last_at: Date;
    status: Generated<string>;
    operator_note: string | null;
    reviewed_by: string | null;
    reviewed_at: Date | null;
  };
  /** Append-only (a trigger refuses UPDATE and DELETE). */
  operator_actions: OperatorActionsTable;
  bookings: {
    id: string;
    account_id: string;
    starts_at: Date;
    ends_at: Date;
    status: string;
    topic: string | null;
    payment: string;
    amount_atomic: number;
    pay: { deposit_address: string; memo: string; asset: string; network: string } | null;
    created_at: Date;
    expires_at: Date | null;
    confirmed_at: Date | null;
    /** The Idempotency-Key the booking was asked with; cleared when its payment is refused. */
    idempotency_key: string | null;
  };
}
